/**
 * One OVN chassis on the OVS userspace datapath with dummy netdevs, as OVN's
 * own test suite runs it (tests/ovn-macros.at): its own conf.db
 * ovsdb-server, `ovs-vswitchd --enable-dummy=override` (every "system"
 * netdev is a dummy one, no kernel module, no namespaces; the netdev
 * datapath brings its own conntrack), `br-int` in fail-mode secure, and
 * ovn-controller pointed at a control plane's SB.
 *
 * Facts this relies on (OVN 23.03 / OVS 3.1, measured here):
 * - the datapath runs in vswitchd's main thread, misses and recirculations
 *   included: once a unixctl call made after `netdev-dummy/receive` has
 *   answered, every frame that packet produced is in the tx pcaps
 *   ({@link Chassis.barrier}); what goes through ovn-controller (pinctrl:
 *   ICMP errors, ARP/ND requests, TCP RST) arrives later ({@link Chassis.settle});
 * - more than about 100 queued frames overflow a dummy netdev's receive
 *   queue and are dropped silently: frames go in batches of at most 100,
 *   each followed by a barrier;
 * - ovn-controller 23.03 takes no --unixctl (its socket is
 *   `ovn-controller.<pid>.ctl` in OVN_RUNDIR);
 * - OVS 3.1.0's userspace conntrack aborts vswitchd (conntrack.c:1063
 *   assertion) when a UDP 5-tuple is reused about 60 s after its entry was
 *   made: the caller flushes conntrack between cases, and {@link Chassis.alive}
 *   / {@link Chassis.restart} recover from the abort;
 * - a tx_pcap option set again to the same file name does nothing, so a
 *   restart points every interface at a new file.
 */
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { chassisDaemons } from '../../backends/ovn/control-plane/chassis-daemons.ts';
import type { DaemonProcess } from '../../backends/ovn/control-plane/daemon.ts';
import { pollUntil, runTool } from '../../backends/ovn/control-plane/exec.ts';
import { startOvsdbServer, VSWITCH_SCHEMA, type OvsdbServer } from '../../backends/ovn/control-plane/ovsdb-server.ts';
import type { Operation } from '../../backends/ovn/ovsdb/index.ts';
import {
  INTEGRATION_BRIDGE,
  Vswitch,
  addPortOps,
  deletePortOps,
  setInterfaceOps,
  waitInstalled,
} from '../../node/ovs/index.ts';
import { DatapathError } from './errors.ts';
import { parsePcapRecords, PCAP_HEADER_BYTES } from './pcap.ts';
import { UnixctlClient } from './unixctl.ts';

/** A logical port to give an interface: a VIF on br-int, or a localnet port through a bridge mapping. */
export type PortBinding =
  | { readonly kind: 'vif'; readonly port: string }
  | { readonly kind: 'localnet'; readonly port: string; readonly network: string };

export interface ChassisOptions {
  /** Directory for the chassis' files (keep it short: unix socket paths). */
  readonly dir: string;
  /** The SB ovn-controller follows, e.g. `unix:<dir>/sb.sock`. */
  readonly sbRemote: string;
  /** The NB, for `ovn-nbctl --wait=hv sync`. */
  readonly nbRemote: string;
  /** external_ids:system-id, the chassis name NB rows refer to. Default 'hv1'. */
  readonly systemId?: string;
}

/** Frames that left by one interface, named by the logical port bound to it. */
export interface PortFrames {
  readonly port: string;
  readonly frames: readonly Uint8Array[];
}

interface Iface {
  readonly name: string;
  readonly binding: PortBinding;
  /** The bridge it is on (br-int, or the localnet network's bridge). */
  readonly bridge: string;
  pcap: string;
  offset: number;
}

const MAX_BATCH = 100;

const sameBinding = (a: PortBinding, b: PortBinding): boolean =>
  a.kind === b.kind && (a.kind === 'vif' || (b.kind === 'localnet' && a.network === b.network));
const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * @example
 * const ch = await Chassis.start({ dir, sbRemote: cp.sb.remote, nbRemote: cp.nb.remote });
 * await ch.bind([{ kind: 'vif', port: 'pod0.ls0' }, { kind: 'vif', port: 'pod1.ls0' }]);
 * await ch.sync();
 * await ch.inject('pod0.ls0', [emitPacket(udp)]);
 * await ch.barrier();
 * ch.collect(); // [{ port: 'pod1.ls0', frames: [<bytes>] }]
 * await ch.stop();
 */
export class Chassis {
  readonly #ifaces = new Map<string, Iface>();
  /** network name → its bridge. */
  readonly #networks = new Map<string, string>();
  #generation = 0;
  #next = 0;
  /** The logical ports of the NB as last synced (those that get ovn-installed). */
  #present: ReadonlySet<string> = new Set();
  #ctl: UnixctlClient | undefined;
  /** The node agent's view of conf.db (node/ovs): every port and bridge change goes through it. */
  #vs: Vswitch | undefined;
  /** How many times vswitchd was restarted after dying. */
  restarts = 0;

  private constructor(
    readonly opts: ChassisOptions,
    readonly conf: OvsdbServer,
    readonly vswitchd: DaemonProcess,
    readonly controller: DaemonProcess,
  ) {}

  static async start(opts: ChassisOptions): Promise<Chassis> {
    const conf = await startOvsdbServer({ dir: opts.dir, name: 'conf', schema: VSWITCH_SCHEMA });
    const { vswitchd, controller } = chassisDaemons({
      dir: opts.dir,
      confRemote: conf.remote,
      vswitchdArgs: ['--enable-dummy=override', '--disable-system', '--disable-system-route'],
    });
    const ch = new Chassis(opts, conf, vswitchd, controller);
    try {
      // The root row is made by OVS's own start-up (ovs-ctl runs `ovs-vsctl init`) before any agent connects; the
      // chassis plays that part too, with the same tool.
      await runTool('ovs-vsctl', [`--db=${conf.remote}`, '--timeout=30', '--no-wait', 'init'], { dir: opts.dir });
      await ch.#startVswitchd();
      const vs = await Vswitch.open({ remote: conf.remote });
      ch.#vs = vs;
      const id = opts.systemId ?? 'hv1';
      const ids = {
        'system-id': id,
        hostname: id,
        'ovn-remote': opts.sbRemote,
        'ovn-encap-type': 'geneve',
        'ovn-encap-ip': '127.0.0.1',
      };
      const bridge = {
        name: INTEGRATION_BRIDGE,
        failMode: 'secure',
        otherConfig: { 'disable-in-band': 'true' },
      } as const;
      await vs.commit([...vs.setRootExternalIdsOps(ids), ...vs.ensureBridgeOps(bridge)], { waitApplied: true });
      await controller.start();
    } catch (e) {
      await ch.stop();
      throw e;
    }
    return ch;
  }

  get dir(): string {
    return this.opts.dir;
  }

  #vswitch(): Vswitch {
    if (this.#vs === undefined) throw new DatapathError('vswitchd-died', `chassis ${this.dir}: conf.db not open`);
    return this.#vs;
  }

  async #startVswitchd(): Promise<void> {
    await this.vswitchd.start();
    this.#ctl = await pollUntil(async () => UnixctlClient.connect(this.vswitchd.ctl), {
      timeoutMs: 30_000,
      intervalMs: 10,
      abort: () => (this.vswitchd.running ? undefined : this.vswitchd.startError('exited while starting')),
      onTimeout: (e) => this.vswitchd.startError(`unixctl never answered (${String(e)})`, 'not-ready'),
    });
  }

  /** The logical ports bound so far. */
  get bound(): readonly PortBinding[] {
    return [...this.#ifaces.values()].map((i) => i.binding);
  }

  /**
   * Gives every listed logical port an interface (once: a port bound before
   * keeps its interface, an interface whose port left the NB stays, unused).
   * VIFs are dummy ports on br-int with external_ids:iface-id; a localnet
   * network gets a bridge of its own (ovn-bridge-mappings) with one dummy
   * port, which sees what OVN sends out the localnet port and is where
   * frames from the outside enter.
   */
  async bind(ports: readonly PortBinding[]): Promise<void> {
    const vs = this.#vswitch();
    const ops: Operation[] = [];
    let mappingsChanged = false;
    for (const b of ports) {
      const had = this.#ifaces.get(b.port);
      if (had !== undefined && sameBinding(had.binding, b)) continue;
      // A localnet port whose network differs from its last binding: its interface moves to that network's bridge.
      if (had !== undefined) ops.push(...deletePortOps(vs, had.name));
      const name = `${b.kind === 'vif' ? 'v' : 'n'}${this.#next++}`;
      let bridge = INTEGRATION_BRIDGE;
      if (b.kind === 'localnet') {
        bridge = this.#networks.get(b.network) ?? `br-n${this.#networks.size}`;
        if (!this.#networks.has(b.network)) {
          this.#networks.set(b.network, bridge);
          mappingsChanged = true;
          ops.push(...vs.ensureBridgeOps({ name: bridge }));
        }
      }
      const iface: Iface = { name, binding: b, bridge, pcap: this.#pcapName(name), offset: PCAP_HEADER_BYTES };
      this.#ifaces.set(b.port, iface);
      const ifaceId = b.kind === 'vif' ? b.port : undefined;
      ops.push(...addPortOps(vs, { name, bridge, ifaceId, options: { tx_pcap: iface.pcap } }));
    }
    if (mappingsChanged) {
      const mappings = [...this.#networks].map(([net, br]) => `${net}:${br}`).join(',');
      ops.push(...vs.setRootExternalIdsOps({ 'ovn-bridge-mappings': mappings }));
    }
    // As ovs-vsctl without --no-wait: the netdevs exist in vswitchd when this resolves (inject needs them).
    if (ops.length) await vs.commit(ops, { waitApplied: true });
  }

  #pcapName(iface: string): string {
    return `${this.dir}/${iface}-${this.#generation}.pcap`;
  }

  /**
   * Waits until ovn-controller has installed the flows of the NB as it is
   * now (`ovn-nbctl --wait=hv sync`; `hv: false` when the caller waited for
   * that itself) and has marked every VIF whose logical port is in `present`
   * (default: as at the last sync) ovn-installed.
   */
  async sync(present: ReadonlySet<string> = this.#present, opts: { readonly hv?: boolean } = {}): Promise<void> {
    this.#present = new Set(present);
    const names = [...this.#ifaces.values()]
      .filter((i) => i.binding.kind === 'vif' && present.has(i.binding.port))
      .map((i) => i.name);
    try {
      const timeoutMs = Number(process.env.KOVN_DP_INSTALL_TIMEOUT ?? 30) * 1000;
      if (names.length) await waitInstalled(this.#vswitch(), names, { timeoutMs });
    } catch (e) {
      throw new DatapathError('not-installed', `chassis ${this.dir}: ports never ovn-installed: ${String(e)}`, {
        cause: e,
      });
    }
    if (opts.hv === false) return;
    await runTool('ovn-nbctl', [`--db=${this.opts.nbRemote}`, '--timeout=60', '--wait=hv', 'sync'], {
      dir: this.dir,
      timeoutMs: 70_000,
    });
  }

  #client(): UnixctlClient {
    if (this.#ctl === undefined || !this.#ctl.open)
      throw new DatapathError('vswitchd-died', `ovs-vswitchd in ${this.dir}: no unixctl connection`);
    return this.#ctl;
  }

  /** One unixctl command to vswitchd. */
  appctl(method: string, params: readonly string[] = []): Promise<string> {
    return this.#client().call(method, params);
  }

  /**
   * Frames into the interface bound to `port`, as if they arrived on the
   * wire, in batches of at most 100 (each followed by a barrier).
   */
  async inject(port: string, frames: readonly Uint8Array[]): Promise<void> {
    const iface = this.#ifaces.get(port);
    if (iface === undefined) throw new DatapathError('unknown-port', `chassis ${this.dir}: port ${port} is not bound`);
    for (let i = 0; i < frames.length; i += MAX_BATCH) {
      const batch = frames.slice(i, i + MAX_BATCH).map(hex);
      await this.appctl('netdev-dummy/receive', [iface.name, ...batch]);
      await this.barrier();
    }
  }

  /** Resolves once vswitchd has run every frame injected before it (a later unixctl call answered). */
  async barrier(): Promise<void> {
    await this.appctl('version');
  }

  /**
   * Bounded wait for what ovn-controller sends back asynchronously (pinctrl):
   * waits `ms`, barrier, and again while the last wait brought new frames
   * (a generated packet may cause another), at most `rounds` times.
   */
  async settle(ms: number, rounds = 4): Promise<void> {
    for (let r = 0; r < rounds; r++) {
      const before = this.#pendingBytes();
      await sleep(ms);
      await this.barrier();
      if (this.#pendingBytes() === before) return;
    }
  }

  #pendingBytes(): number {
    let n = 0;
    for (const i of this.#ifaces.values()) n += fileSize(i.pcap) - i.offset;
    return n;
  }

  /** Every frame written to a tx pcap since the last collect, per logical port. */
  collect(): PortFrames[] {
    const out: PortFrames[] = [];
    for (const i of this.#ifaces.values()) {
      if (fileSize(i.pcap) <= i.offset) continue;
      const { records, end } = parsePcapRecords(readFileSync(i.pcap), { from: i.offset });
      i.offset = end;
      if (records.length) out.push({ port: i.binding.port, frames: records.map((r) => r.data) });
    }
    return out;
  }

  /** Forgets every connection of the datapath's conntrack (all zones). */
  async flushConntrack(): Promise<void> {
    await this.appctl('dpctl/flush-conntrack');
  }

  /**
   * Forgets the load-balancer affinities `commit_lb_aff` learned: they are
   * OpenFlow flows its `learn` action adds to br-int's table 78
   * (OFTABLE_CHK_LB_AFFINITY in OVN 23.03; ovn-controller installs nothing
   * else there), they outlive a conntrack flush, and they match on the
   * datapath's tunnel key, which the next topology may reuse.
   */
  async flushLearnedAffinity(): Promise<void> {
    await runTool('ovs-ofctl', ['del-flows', 'br-int', 'table=78'], { dir: this.dir });
    // Datapath flows cached from the learned ones would outlive them until a revalidator runs.
    await this.appctl('revalidator/purge');
  }

  /**
   * The MACs ovn-controller has installed as learned (SB FDB rows, from
   * pinctrl's put_fdb): br-int's table 71 (OFTABLE_GET_FDB in OVN 23.03,
   * `metadata=<switch>,dl_dst=<MAC> actions=load:<port>->reg15`).
   */
  async learnedMacs(): Promise<Set<string>> {
    const { stdout } = await runTool('ovs-ofctl', ['dump-flows', 'br-int', 'table=71'], { dir: this.dir });
    return new Set([...stdout.matchAll(/dl_dst=([0-9a-f:]{17})/g)].map((m) => m[1]!));
  }

  /** Whether vswitchd still runs and answers. */
  async alive(): Promise<boolean> {
    if (!this.vswitchd.running || this.#ctl === undefined || !this.#ctl.open) return false;
    try {
      await this.barrier();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Starts vswitchd again after it died (same conf.db: bridges, interfaces
   * and bindings come back), and ovn-controller with it (a running one
   * reconnects with a back-off and would report the NB's flows installed
   * before it has sent them again): ovn-installed marks are removed first, so
   * waiting for them again means the flows are back. Every interface gets a
   * fresh pcap file.
   */
  async restart(opts: { readonly sync?: boolean } = {}): Promise<void> {
    this.restarts++;
    this.#ctl?.close();
    await this.controller.stop();
    if (this.vswitchd.running) await this.vswitchd.kill();
    this.#generation++;
    const vs = this.#vswitch();
    const ops: Operation[] = [];
    for (const i of this.#ifaces.values()) {
      i.pcap = this.#pcapName(i.name);
      i.offset = PCAP_HEADER_BYTES;
      const removeExternalIds = i.binding.kind === 'vif' ? ['ovn-installed'] : [];
      ops.push(...setInterfaceOps(vs, i.name, { options: { tx_pcap: i.pcap }, removeExternalIds }));
    }
    // No waiting for vswitchd: it is not running.
    if (ops.length) await vs.commit(ops);
    await this.#startVswitchd();
    await this.controller.start();
    if (opts.sync !== false) await this.sync();
    await this.flushConntrack();
  }

  /** Whether ovn-controller runs (it may have died on a topology, see CHASSIS_DAEMON_MEMORY_LIMIT). */
  get controllerRunning(): boolean {
    return this.controller.running;
  }

  /** Starts whichever of vswitchd and ovn-controller is not running (a full restart if vswitchd died). */
  async ensureRunning(): Promise<boolean> {
    // No waiting for flows here: the NB may still hold the topology that killed it.
    if (!(await this.alive())) {
      await this.restart({ sync: false });
      return true;
    }
    if (this.controller.running) return false;
    this.restarts++;
    await this.controller.start();
    return true;
  }

  /** Stops ovn-controller, vswitchd and the conf.db server (in that order). */
  async stop(): Promise<void> {
    this.#ctl?.close();
    this.#vs?.close();
    const errors: unknown[] = [];
    for (const d of [this.controller, this.vswitchd, this.conf]) {
      try {
        await d.stop();
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length) throw errors[0];
  }
}
