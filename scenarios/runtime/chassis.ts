/**
 * One node's OVS for the real-runtime tests: its own conf.db, `ovs-vswitchd`
 * on the userspace (netdev) datapath with real netdevs (a veth's host end on
 * br-int is read and written through AF_PACKET; no kernel module here), and
 * `ovn-controller` following the control plane's SB, so that a pod port the
 * node agent plugs gets `ovn-installed`.
 */
import { DaemonProcess } from '../../backends/ovn/control-plane/daemon.ts';
import { runTool } from '../../backends/ovn/control-plane/exec.ts';
import { startOvsdbServer, VSWITCH_SCHEMA, type OvsdbServer } from '../../backends/ovn/control-plane/ovsdb-server.ts';
import { INTEGRATION_BRIDGE, Vswitch } from '../../node/ovs/index.ts';

export interface NodeChassisOptions {
  readonly dir: string;
  readonly sbRemote: string;
  /** external_ids:system-id (the node's name). */
  readonly systemId: string;
}

/** As verify/datapath's chassis: a daemon growing without bound fails alone. */
const DAEMON_MEMORY_LIMIT = 2 * 1024 ** 3;

/**
 * @example
 * const ch = await NodeChassis.start({ dir, sbRemote: cp.sb.remote, systemId: 'kovn-node-1' });
 * ch.conf.remote // the local Open_vSwitch database the node agent opens
 * await ch.stop();
 */
export class NodeChassis {
  private constructor(
    readonly conf: OvsdbServer,
    readonly vswitchd: DaemonProcess,
    readonly controller: DaemonProcess,
  ) {}

  static async start(opts: NodeChassisOptions): Promise<NodeChassis> {
    const conf = await startOvsdbServer({ dir: opts.dir, name: 'conf', schema: VSWITCH_SCHEMA });
    const vswitchd = new DaemonProcess({
      dir: opts.dir,
      name: 'vswitchd',
      binary: 'ovs-vswitchd',
      args: ['--disable-system', conf.remote],
      memoryLimitBytes: DAEMON_MEMORY_LIMIT,
    });
    const controller = new DaemonProcess({
      dir: opts.dir,
      name: 'controller',
      binary: 'ovn-controller',
      args: [conf.remote],
      unixctlOption: false,
      memoryLimitBytes: DAEMON_MEMORY_LIMIT,
    });
    const ch = new NodeChassis(conf, vswitchd, controller);
    try {
      // OVS's own start-up (ovs-ctl) makes the root row before any agent connects.
      await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--timeout=30', '--no-wait', 'init'], { dir: opts.dir });
      await vswitchd.start();
      const vs = await Vswitch.open({ remote: conf.remote });
      try {
        const ids = {
          'system-id': opts.systemId,
          hostname: opts.systemId,
          'ovn-remote': opts.sbRemote,
          'ovn-encap-type': 'geneve',
          'ovn-encap-ip': '127.0.0.1',
        };
        const bridge = {
          name: INTEGRATION_BRIDGE,
          failMode: 'secure',
          otherConfig: { 'disable-in-band': 'true' },
        } as const;
        await vs.commit([...vs.setRootExternalIdsOps(ids), ...vs.ensureBridgeOps(bridge)]);
        const br = [['name', '==', INTEGRATION_BRIDGE] as const];
        await vs.commit([vs.ops.update('Bridge', br, { datapath_type: 'netdev' })], { waitApplied: true });
      } finally {
        vs.close();
      }
      await controller.start();
    } catch (e) {
      await ch.stop();
      throw e;
    }
    return ch;
  }

  async stop(): Promise<void> {
    for (const d of [this.controller, this.vswitchd, this.conf]) await d.stop().catch(() => {});
  }
}
