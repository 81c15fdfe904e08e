/**
 * The lab's chassis: one `ovs-vswitchd` on the userspace (netdev) datapath
 * with real netdevs (no `--enable-dummy`: a veth's host end on br-int is
 * read and written through AF_PACKET), its own conf.db, and `ovn-controller`
 * following the control plane's SB. Every scenario node's pods and `ovn0`
 * ports are on this one br-int: the controller sets no requested-chassis, so
 * one chassis binds them all and no tunnel is needed. vswitchd runs in a
 * namespace of the run (the lab's host): br-int's tap and the host ends of
 * the veths are there, and go when it is deleted (a netdev bridge's tap is
 * persistent: in the root namespace it would outlive vswitchd).
 */
import { chassisDaemons } from '../../backends/ovn/control-plane/chassis-daemons.ts';
import type { DaemonProcess } from '../../backends/ovn/control-plane/daemon.ts';
import { runTool } from '../../backends/ovn/control-plane/exec.ts';
import { startOvsdbServer, VSWITCH_SCHEMA, type OvsdbServer } from '../../backends/ovn/control-plane/ovsdb-server.ts';
import { Vswitch } from '../../node/ovs/index.ts';
import { configureNodeOvs } from '../../node/setup/index.ts';

export interface LabChassisOptions {
  readonly dir: string;
  readonly sbRemote: string;
  /** The network namespace ovs-vswitchd runs in (its devices die with it). */
  readonly netns: string;
  /** external_ids:system-id. Default 'lab'. */
  readonly systemId?: string;
}

/**
 * @example
 * const ch = await LabChassis.start({ dir, sbRemote: cp.sb.remote });
 * // ... veths on br-int with external_ids:iface-id ...
 * await ch.stop();
 */
export class LabChassis {
  private constructor(
    readonly conf: OvsdbServer,
    readonly vswitchd: DaemonProcess,
    readonly controller: DaemonProcess,
    readonly vswitch: Vswitch,
  ) {}

  static async start(opts: LabChassisOptions): Promise<LabChassis> {
    const conf = await startOvsdbServer({ dir: opts.dir, name: 'conf', schema: VSWITCH_SCHEMA });
    const { vswitchd, controller } = chassisDaemons({
      dir: opts.dir,
      confRemote: conf.remote,
      // No kernel datapath here: only the userspace one is registered.
      vswitchdArgs: ['--disable-system'],
      netns: opts.netns,
    });
    let vs: Vswitch | undefined;
    const stopAll = async () => {
      vs?.close();
      for (const d of [controller, vswitchd, conf]) await d.stop().catch(() => {});
    };
    try {
      await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--timeout=30', '--no-wait', 'init'], { dir: opts.dir });
      await vswitchd.start();
      vs = await Vswitch.open({ remote: conf.remote });
      // The node agent's own settings for the userspace profile (node/setup): system-id, ovn-remote, encap,
      // br-int in fail-mode secure on the netdev datapath.
      const id = opts.systemId ?? 'lab';
      const cfg = { systemId: id, ovnRemote: opts.sbRemote, encapIp: '127.0.0.1', profile: 'netdev' } as const;
      await configureNodeOvs(vs, cfg, { waitApplied: true });
      await controller.start();
      return new LabChassis(conf, vswitchd, controller, vs);
    } catch (e) {
      await stopAll();
      throw e;
    }
  }

  /** Stops ovn-controller, vswitchd and the conf.db server (in that order). */
  async stop(): Promise<void> {
    this.vswitch.close();
    for (const d of [this.controller, this.vswitchd, this.conf]) await d.stop().catch(() => {});
  }
}
