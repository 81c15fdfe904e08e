/**
 * DatapathOracle: real packets through ovn-controller and the OVS userspace
 * datapath, the judge of the differential test. Over a control plane whose
 * NB holds a topology, it binds every VIF and localnet port of that
 * topology to a dummy interface of one chassis (chassis.ts), sends packets
 * in as frames (model/packet's wire encoding) and reads back every frame
 * that left any port, generated ones (ICMP errors, ARP/ND, RST) included.
 *
 * A run is one connection's packets in order (a first packet, the reply,
 * a second packet...): conntrack, LB and NAT state come from the real
 * packets before. Between runs conntrack is flushed (and, on a topology
 * with load-balancer affinity, the affinities OVS learned), and what
 * ovn-controller learned (SB MAC_Binding, FDB) is forgotten by
 * {@link DatapathOracle.forgetLearned}.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ETH_TYPE_ARP } from '../../model/packet/fields.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { emitPacket, parsePacket } from '../../model/packet/wire/index.ts';
import { learnsFdb, type Topology } from '../../model/topology/index.ts';
import { formatMAC } from '../../model/addr/index.ts';
import type { ControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { affinityTimeout } from '../../model/topology/index.ts';
import { makeTempDir, removeTempDir } from '../../backends/ovn/control-plane/run-dir.ts';
import { runTool } from '../../backends/ovn/control-plane/exec.ts';
import { Chassis, type PortBinding } from './chassis.ts';
import { DatapathError } from './errors.ts';

export interface DatapathOutput {
  /** The logical port the frame left by (a VIF, or a localnet port). */
  readonly port: string;
  readonly packet: Packet;
  /** The frame as it was on the wire. */
  readonly bytes: Uint8Array;
}

export interface DatapathStep {
  readonly verdict: 'delivered' | 'dropped';
  readonly outputs: readonly DatapathOutput[];
}

export interface DatapathRun {
  /** One step per packet sent, in order. */
  readonly steps: readonly DatapathStep[];
  /**
   * Gratuitous ARPs that are not the sent packet's own, left out of the
   * steps (see isAnnouncement): ovn-controller announces gateway and
   * localnet-switch VIF addresses on its own schedule, not in answer to a packet.
   */
  readonly announcements: number;
  /** Times vswitchd died during this run and the run was done again on a restarted one. */
  readonly restarts: number;
  /**
   * The packet (index) that made vswitchd die on two tries in a row: OVS
   * itself crashes on this traffic (OVS 3.1.0's userspace conntrack asserts
   * on some NAT'd connections), so there is no verdict from it; `steps`
   * holds the packets before it.
   */
  readonly crashedAt?: number;
  /** Set when the chassis could not run the topology at all (ovn-controller died installing it). */
  readonly unavailable?: string;
  /** Frames that arrived before the run started (late answers to an earlier run); not part of it. */
  readonly stray: number;
}

export interface SendPacket {
  /** A VIF or localnet port of the loaded topology. */
  readonly inport: string;
  readonly packet: Packet;
  /** Flush conntrack just before this packet (`dpctl/flush-conntrack`; learned flows stay). */
  readonly flushConntrack?: boolean;
}

export interface DatapathRequest {
  /** In order; each enters by its logical port. */
  readonly packets: readonly SendPacket[];
  /**
   * After the listed packets: the next one, given what every packet so far
   * made leave (a reply built from the first packet as it arrived), or
   * undefined to end the run. Called again when a run is done anew.
   */
  readonly next?: (steps: readonly DatapathStep[]) => SendPacket | undefined;
  /** This run's bounded wait for pinctrl (ms), instead of the oracle's. */
  readonly settleMs?: number;
}

export interface DatapathOracleOptions {
  /** The control plane whose SB the chassis follows (its NB holds the topologies). */
  readonly controlPlane: Pick<ControlPlane, 'nb' | 'sb'>;
  /** Directory for the chassis (default: a fresh temp dir). */
  readonly dir?: string;
  /**
   * The bounded wait for pinctrl's packets after each packet (ms; default
   * 50). Measured here: 0.2–0.3 ms on an idle machine, but an ARP request
   * once took over 30 ms while the two CPUs ran a test suite besides.
   */
  readonly settleMs?: number;
  /** The chassis name NB rows refer to (default 'hv1'). */
  readonly systemId?: string;
}

const DEFAULT_SETTLE_MS = 50;
/** Bound on ovn-controller installing (or removing) a learned MAC's flows. */
const MAC_LEARN_WAIT_MS = 2_000;

/** An ARP request for the sender's own address: an announcement, not a question. */
export function isGarp(p: Packet): boolean {
  return p['eth.type'] === ETH_TYPE_ARP && p['arp.op'] === 1 && p['arp.spa'] === p['arp.tpa'];
}

/**
 * A frame ovn-controller sent on its own schedule, not in answer to `sent`: a
 * gratuitous ARP that is not the sent packet's own GARP forwarded. pinctrl
 * announces gateway addresses out of a gateway's switch and, for a switch with
 * a localnet port, every VIF's addresses with that VIF's own MAC (from the
 * moment the port is bound, repeated with a back-off), so a GARP carrying the
 * sender's MAC is an announcement too unless the sender itself sent that GARP.
 */
export function isAnnouncement(out: Packet, sent: Packet): boolean {
  if (!isGarp(out)) return false;
  const forwarded =
    isGarp(sent) &&
    sent['eth.src'] === out['eth.src'] &&
    sent['arp.sha'] === out['arp.sha'] &&
    sent['arp.spa'] === out['arp.spa'];
  return !forwarded;
}

/**
 * Whether loading the topology makes ovn-controller claim or plumb something whose flows can come
 * after hv_cfg caught up: a gateway router port (its chassisredirect port) or a localnet port (its
 * patch ports). See DatapathOracle.installed.
 *
 * @example needsSecondSync(topology) // true when some router port has gateway chassis
 */
export function needsSecondSync(t: Topology): boolean {
  return (
    [...t.routerPort.values()].some((p) => p.gatewayChassis.length > 0) ||
    [...t.switchPort.values()].some((p) => p.type === 'localnet')
  );
}

/** The ports of a topology the chassis binds: its VIFs and localnet ports. */
export function bindingsOf(t: Topology): PortBinding[] {
  const out: PortBinding[] = [];
  for (const p of t.switchPort.values()) {
    if (p.type === '' && p.parentName === undefined) out.push({ kind: 'vif', port: p.name });
    else if (p.type === 'localnet')
      out.push({ kind: 'localnet', port: p.name, network: p.options.network_name ?? 'physnet' });
  }
  return out;
}

/**
 * The topology with each localnet port on a network of its own, named after
 * the port (`<network>-<port>`). On one chassis, localnet ports that share
 * a network share a bridge, so a frame from the outside would enter all of
 * their switches, and one that leaves by one of them would come back in by
 * the others; the simulator and ovn-trace know one port per packet. And a
 * port keeps its network from topology to topology, so its interface stays
 * where it is. Network names are read only by ovn-controller: the logical
 * flows do not change.
 *
 * @example oneNetworkPerLocalnet(t).switchPort.get('ln-ext1')?.options.network_name // 'physnet1-ln-ext1'
 */
export function oneNetworkPerLocalnet(t: Topology): Topology {
  const suffix = (p: { name: string }) => `-${p.name}`;
  const apart = [...t.switchPort.values()].every(
    (p) => p.type !== 'localnet' || (p.options.network_name ?? '').endsWith(suffix(p)),
  );
  if (apart) return t;
  const ports = new Map(
    [...t.switchPort].map(([k, p]) => {
      const n = p.options.network_name ?? 'physnet';
      if (p.type !== 'localnet' || n.endsWith(suffix(p))) return [k, p] as const;
      return [k, { ...p, options: { ...p.options, network_name: `${n}${suffix(p)}` } }] as const;
    }),
  );
  return { ...t, switchPort: ports };
}

/**
 * @example
 * const dp = await DatapathOracle.start({ controlPlane: cp });
 * await dp.load(topology);                    // the NB already holds it
 * const run = await dp.run({ packets: [{ inport: 'pod0.ls0', packet: syn }, { inport: 'pod1.ls0', packet: synAck }] });
 * run.steps[0].outputs[0].port                // 'pod1.ls0'
 * await dp.stop();
 */
export class DatapathOracle {
  readonly #present = new Set<string>();
  /** Bound ports that learn the MACs they send (put_fdb; model/topology learnsFdb). */
  readonly #learning = new Set<string>();
  /** A run taught the chassis a MAC (SB FDB): the next run starts without it. */
  #fdbLearned = false;
  /** The bound topology has a load balancer with affinity (learned flows to forget between runs). */
  #affinity = false;
  /** Why the chassis cannot run the loaded topology (ovn-controller died on it), if so. */
  #unavailable: string | undefined;
  /** The bound topology has a gateway router port or a localnet port (see {@link installed}). */
  #claims = false;

  private constructor(
    readonly chassis: Chassis,
    readonly opts: DatapathOracleOptions,
    readonly ownDir: boolean,
  ) {}

  static async start(opts: DatapathOracleOptions): Promise<DatapathOracle> {
    const ownDir = opts.dir === undefined;
    const dir = opts.dir ?? (await makeTempDir('dp'));
    try {
      const chassis = await Chassis.start({
        dir,
        sbRemote: opts.controlPlane.sb.remote,
        nbRemote: opts.controlPlane.nb.remote,
        ...(opts.systemId ? { systemId: opts.systemId } : {}),
      });
      return new DatapathOracle(chassis, opts, ownDir);
    } catch (e) {
      if (ownDir) await removeTempDir(dir);
      throw e;
    }
  }

  /** Times vswitchd had to be restarted so far. */
  get restarts(): number {
    return this.chassis.restarts;
  }

  /**
   * Binds the topology's ports (the NB must already hold it, northd done)
   * and waits until ovn-controller has installed its flows.
   */
  async load(topology: Topology): Promise<void> {
    await this.bind(topology);
    await this.installed({ synced: false });
  }

  /** Gives the topology's ports their interfaces; may come before the NB holds it. */
  async bind(topology: Topology): Promise<void> {
    this.#unavailable = undefined;
    await this.chassis.ensureRunning();
    const ports = bindingsOf(topology);
    await this.chassis.bind(ports);
    this.#affinity = [...topology.loadBalancer.values()].some((lb) => affinityTimeout(lb) !== 0);
    this.#claims = needsSecondSync(topology);
    this.#present.clear();
    for (const b of ports) this.#present.add(b.port);
    this.#learning.clear();
    for (const p of topology.switchPort.values()) if (learnsFdb(p)) this.#learning.add(p.name);
    this.#fdbLearned = false;
  }

  /**
   * Waits until the bound ports that are in the NB are ovn-installed and,
   * unless the caller already waited for the chassis (`synced`: NB_Global
   * hv_cfg, as `ovn-nbctl --wait=hv`), until ovn-controller installed the
   * NB's flows.
   */
  async installed(opts: { readonly synced: boolean }): Promise<void> {
    await this.chassis.sync(this.#present, { hv: !opts.synced });
    // hv_cfg can catch up before a gateway port's or a localnet port's flows exist: ovn-controller claims
    // the chassisredirect port in an SB transaction, and until that claim comes back is_chassis_resident()
    // is false (OVN 23.03 lport_is_chassis_resident reads Port_Binding.chassis), so the iteration that acks
    // nb_cfg installs the gateway's flows without it; likewise a new localnet patch port has no ofport yet.
    // A second wait starts after the first was acked, so after the claim was committed (one client's SB
    // transactions apply in order): the flows it waits for were computed with the claim.
    if (this.#claims) await this.chassis.sync(this.#present, { hv: true });
  }

  /** Whether ovn-controller and vswitchd still run (a wait for the chassis gives up when not). */
  get running(): boolean {
    return this.chassis.controllerRunning && this.chassis.vswitchd.running;
  }

  /**
   * The loaded topology cannot run here (ovn-controller died installing it):
   * runs give no steps (`crashedAt` 0) until the next topology is bound.
   */
  markUnavailable(reason: string): void {
    this.#unavailable = reason;
  }

  /**
   * Forgets what ovn-controller learned from earlier packets (SB
   * MAC_Binding and FDB rows): call before the next topology is loaded, so
   * neither it nor an ovn-trace over the same SB sees them.
   */
  async forgetLearned(): Promise<void> {
    await runTool(
      'ovn-sbctl',
      [`--db=${this.opts.controlPlane.sb.remote}`, '--all', 'destroy', 'MAC_Binding', '--', '--all', 'destroy', 'FDB'],
      { dir: this.chassis.dir },
    );
  }

  /**
   * Sends the packets one after another (each: inject, barrier, the bounded
   * wait for pinctrl) and reads what each made leave. Conntrack is flushed
   * first. If vswitchd dies meanwhile (OVS 3.1's conntrack assertion), it
   * is restarted and the run done again; dying on the same packet again
   * ends the run there (`crashedAt`).
   */
  async run(req: DatapathRequest): Promise<DatapathRun> {
    if (this.#unavailable !== undefined)
      return { steps: [], restarts: 0, stray: 0, announcements: 0, crashedAt: 0, unavailable: this.#unavailable };
    let restarts = 0;
    let diedAt: number | undefined;
    for (;;) {
      const r = await this.#runOnce(req);
      if (r.died === undefined && (await this.chassis.alive())) return { ...r, restarts };
      const at = r.died ?? r.steps.length;
      if (at < 0) {
        if (restarts++ > 2)
          throw new DatapathError('vswitchd-died', `ovs-vswitchd in ${this.chassis.dir} keeps dying before a run`);
        await this.chassis.restart();
        continue;
      }
      // The same packet killed it again: a crash of this OVS on this traffic, not bad luck with an old entry.
      if (restarts > 0 && diedAt === at) {
        await this.chassis.restart();
        return { ...r, steps: r.steps.slice(0, at), restarts, crashedAt: at };
      }
      if (restarts++ > 1)
        throw new DatapathError('vswitchd-died', `ovs-vswitchd in ${this.chassis.dir} died three times on one run`);
      diedAt = at;
      await this.chassis.restart();
    }
  }

  async #runOnce(
    req: DatapathRequest,
  ): Promise<{ steps: DatapathStep[]; stray: number; announcements: number; died?: number }> {
    const steps: DatapathStep[] = [];
    let announcements = 0;
    let stray = 0;
    try {
      await this.chassis.flushConntrack();
      if (this.#affinity) await this.chassis.flushLearnedAffinity();
      if (this.#fdbLearned) await this.#forgetMacs();
      await this.chassis.barrier();
      stray = this.chassis.collect().reduce((n, p) => n + p.frames.length, 0);
    } catch (e) {
      // Dead before the first packet (killed since the last run): the run starts again on a restarted one.
      if (e instanceof DatapathError && !(await this.chassis.alive())) return { steps, stray, announcements, died: -1 };
      throw e;
    }
    for (let k = 0; ; k++) {
      const send = k < req.packets.length ? req.packets[k] : req.next?.(steps);
      if (send === undefined) break;
      const { inport, packet } = send;
      if (!this.#present.has(inport))
        throw new DatapathError('unknown-port', `datapath oracle: inport ${inport} is not in the loaded topology`);
      try {
        if (send.flushConntrack === true) await this.chassis.flushConntrack();
        await this.chassis.inject(inport, [emitPacket(packet)]);
        await this.chassis.settle(req.settleMs ?? this.opts.settleMs ?? DEFAULT_SETTLE_MS);
        if (this.#learning.has(inport)) await this.#macLearned(packet);
      } catch (e) {
        if (e instanceof DatapathError && !(await this.chassis.alive()))
          return { steps, stray, announcements, died: k };
        throw e;
      }
      const all = this.chassis
        .collect()
        .flatMap((p) => p.frames.map((bytes) => ({ port: p.port, packet: parsePacket(bytes), bytes })));
      const outputs = all.filter((o) => !isAnnouncement(o.packet, packet));
      announcements += all.length - outputs.length;
      steps.push({ verdict: outputs.length > 0 ? 'delivered' : 'dropped', outputs });
    }
    return { steps, stray, announcements };
  }

  /**
   * A packet from a port that learns MACs: put_fdb goes through pinctrl, the
   * SB FDB table and ovn-controller, after the packet; the next packet of the
   * run must meet the learned MAC as it would a moment later on a real
   * network, so wait (bounded) until it is installed. Nothing is learned from
   * a frame the port drops first (disabled port, multicast source).
   */
  async #macLearned(packet: Packet): Promise<void> {
    const mac = formatMAC(packet['eth.src']);
    this.#fdbLearned = true;
    const deadline = performance.now() + MAC_LEARN_WAIT_MS;
    while (!(await this.chassis.learnedMacs()).has(mac) && performance.now() < deadline) await sleep(5);
  }

  /** Forgets the learned MACs (SB FDB rows) and waits until ovn-controller removed their flows. */
  async #forgetMacs(): Promise<void> {
    await runTool('ovn-sbctl', [`--db=${this.opts.controlPlane.sb.remote}`, '--all', 'destroy', 'FDB'], {
      dir: this.chassis.dir,
    });
    const deadline = performance.now() + MAC_LEARN_WAIT_MS;
    while ((await this.chassis.learnedMacs()).size > 0) {
      if (performance.now() > deadline)
        throw new DatapathError(
          'fdb-stuck',
          `chassis ${this.chassis.dir}: learned MACs still installed after the SB FDB was emptied`,
        );
      await sleep(5);
    }
    this.#fdbLearned = false;
  }

  async stop(): Promise<void> {
    await this.chassis.stop();
    if (this.ownDir) await removeTempDir(this.chassis.dir);
  }
}
