/**
 * The `ovn` world of the scenario runner: a local OVN control plane in a
 * temp dir (NB, SB, northd), the controller's plans written into NB through
 * our OVSDB client, and each probe's first packet answered by ovn-trace over
 * the flows northd compiled. `close` stops every process and removes the
 * dir (on a signal or a crash the control plane's exit hooks and run guard do).
 *
 * A probe's packet arrives where a branch of the trace outputs it to one of
 * the probe's targets; what a pipeline generated (an ARP request or neighbour
 * solicitation for an unresolved next hop, an ICMP error, a reset) is never
 * the probe's packet arriving, as in the simulator's world. A TCP or SCTP
 * probe whose first packet learned a load-balancer affinity and died there
 * is retried as docs/architecture.md defines (Verdict): its retransmission is
 * traced with the registers the learned flow loads (backends/ovn/trace/
 * lb-affinity.ts), since ovn-trace keeps no state between traces.
 */
import { type ControlPlane, startControlPlane } from '../backends/ovn/control-plane/index.ts';
import { OvnProber } from '../backends/ovn/prober.ts';
import {
  affinityRetrace,
  learnedAffinity,
  type LearnedAffinity,
  type OvnTraceResult,
  type OvnTraceStage,
  type TraceOutput,
} from '../backends/ovn/trace/index.ts';
import { formatIPv4, formatIPv6, tryParseMAC } from '../model/addr/index.ts';
import { isRetransmitted } from '../sim/index.ts';
import type { ProbeWorld } from './run.ts';
import type { ResolvedProbe } from './probe.ts';
import type { ScenarioHost } from './load.ts';
import { hostNeighbors } from './probe-hosts.ts';
import { writeMacBindings } from '../backends/ovn/sb-mac-bindings.ts';
import { isEchoReply, retransmissionNote } from './trace-probe.ts';
import { egressVerdict, type GatewayVerdict } from './natgw.ts';

type PacketProbe = ResolvedProbe & { kind: 'packet' };

/** What a trace says of a probe: allowed, or why not. */
export interface TraceAnswer {
  readonly allowed: boolean;
  readonly reason?: string;
}

/** The address an ARP request or neighbour solicitation asks for. */
function askedFor(o: TraceOutput): string | undefined {
  const tpa = o.packet['arp.tpa'];
  if (tpa !== undefined) return formatIPv4(tpa);
  const target = o.packet['nd.target'];
  return target === undefined ? undefined : formatIPv6(target);
}

/** Why nothing but generated packets left: the router that asked for an unknown next hop, or what was sent. */
function generatedOnly(stages: readonly OvnTraceStage[], generated: readonly TraceOutput[]): string {
  const ask = generated.find((o) => o.generatedBy === 'arp' || o.generatedBy === 'nd_ns');
  const at = stages.find((s) => s.stage === 'lr_in_arp_request' && s.actions.some((a) => /^(arp|nd_ns) \{/.test(a)));
  if (ask !== undefined && at !== undefined) {
    const what = ask.generatedBy === 'arp' ? 'ARP request' : 'neighbour solicitation';
    return `ovn-trace: dropped in ${at.datapath} lr_in_arp_request: next hop ${askedFor(ask) ?? '?'} unresolved (${what} sent)`;
  }
  const kinds = [...new Set(generated.map((o) => o.generatedBy))].join(', ');
  return `ovn-trace: dropped (${kinds} sent instead)`;
}

/**
 * The probe's verdict from one trace: its packet (never a generated one) at
 * a target, or for a router's own address the echo reply back at the inport.
 *
 * @example traceAnswer(probe, await prober.trace({ inport: probe.inport, packet: probe.packet }))
 *   // { allowed: false, reason: 'ovn-trace: dropped in ovn-cluster lr_in_arp_request: next hop 100.64.0.1 unresolved (ARP request sent)' }
 */
export function traceAnswer(r: PacketProbe, t: Pick<OvnTraceResult, 'outputs' | 'stages'>): TraceAnswer {
  const forwarded = t.outputs.filter((o) => o.generatedBy === undefined);
  if (r.routerAnswers) {
    const ok = forwarded.some((o) => o.outport === r.inport && isEchoReply(o.packet));
    return ok ? { allowed: true } : { allowed: false, reason: 'ovn-trace: no echo reply came back' };
  }
  // A host behind a localnet port takes only frames to its own MAC.
  const mac = r.targetMac === undefined ? undefined : tryParseMAC(r.targetMac);
  if (forwarded.some((o) => r.targets.includes(o.outport) && (mac === undefined || o.packet['eth.dst'] === mac)))
    return { allowed: true };
  if (forwarded.length > 0) {
    const ports = [...new Set(forwarded.map((o) => o.outport))];
    return { allowed: false, reason: `ovn-trace: reached ${ports.join(', ')}, not ${r.targets.join(', ')}` };
  }
  const generated = t.outputs.filter((o) => o.generatedBy !== undefined);
  if (generated.length > 0) return { allowed: false, reason: generatedOnly(t.stages, generated) };
  const learned = learnedAffinity(t.stages);
  return { allowed: false, reason: learned === undefined ? 'ovn-trace: dropped' : learnDrop(learned) };
}

/** The drop of a packet that learned an affinity, said as the simulator says it. */
function learnDrop(learned: LearnedAffinity): string {
  const learn = learned.action.replace(/;\s*$/, '');
  return `ovn-trace: dropped in ${learned.datapath} ls_in_lb_aff_learn: ${learn} (OVN 23.03 drops the packet that learns an affinity)`;
}

/**
 * An egress probe through a VPC NAT gateway: ovn-trace takes the packet to
 * the gateway pod's port, the appliance model (scenarios/natgw.ts) continues
 * with the packet ovn-trace output there.
 */
function throughGateway(
  r: PacketProbe,
  t: Pick<OvnTraceResult, 'outputs'>,
  v: TraceAnswer,
): TraceAnswer & { gateway?: GatewayVerdict } {
  if (!v.allowed || r.natGateway?.direction !== 'egress') return v;
  const out = t.outputs.find((o) => o.generatedBy === undefined && r.targets.includes(o.outport));
  const g = out === undefined ? undefined : egressVerdict(r, out.outport, out.packet);
  if (g === undefined) return v;
  return g.allowed
    ? { allowed: true, gateway: g }
    : { allowed: false, reason: g.unsure ?? g.reason ?? 'denied past the NAT gateway', gateway: g };
}

/** What ovn-trace's text is followed by for a probe through a NAT gateway: where the appliance model took over. */
export function gatewayNote(r: PacketProbe, g: GatewayVerdict | undefined): string {
  if (r.natGateway === undefined) return '';
  const stages = r.natGateway.direction === 'ingress' ? r.natGateway.stages : (g?.stages ?? []);
  const lines = stages.map(
    (s) => `  ${s.stage}: ${s.action}${s.rule?.match ? ` [${s.rule.match}]` : ''}${s.note ? ` (${s.note})` : ''}`,
  );
  const head =
    r.natGateway.direction === 'ingress'
      ? `# before this trace: the outside packet went through the NAT gateway pod ${r.natGateway.appliance.name} (kovn's appliance model, not ovn-trace); ovn-trace starts at its port ${r.inport}`
      : `# ovn-trace ends at the NAT gateway pod's port; kovn's appliance model (not ovn-trace) continues from there`;
  return [head, ...lines].join('\n');
}

/** A first packet nothing answered and that went nowhere (the client would retransmit it). */
function unanswered(r: PacketProbe, t: Pick<OvnTraceResult, 'outputs'>): boolean {
  return !t.outputs.some((o) => o.generatedBy === undefined || o.outport === r.inport);
}

/** A probe's verdict on real OVN, with the traces it was read from. */
export interface OvnAnswer extends TraceAnswer {
  /** Through a VPC NAT gateway: what the appliance model made of the packet ovn-trace delivered to it. */
  readonly gateway?: GatewayVerdict;
  /** How the retransmission changed the verdict (set when one was traced). */
  readonly note?: string;
  readonly first: OvnTraceResult;
  readonly retransmission?: OvnTraceResult;
}

/**
 * A probe answered by ovn-trace through `prober` (any NB/SB: a world's own
 * or a live cluster's): its first packet, and where that learned a
 * load-balancer affinity and died, its retransmission (docs/architecture.md,
 * Verdict), traced with what the learned flow loads
 * (backends/ovn/trace/lb-affinity.ts). No retransmission where there is
 * none to send: not TCP or SCTP, answered or forwarded, or no affinity
 * learned (ovn-trace keeps no state: it would trace the same).
 *
 * @example (await ovnAnswer(prober, probe)).allowed
 */
export async function ovnAnswer(prober: Pick<OvnProber, 'trace'>, r: PacketProbe): Promise<OvnAnswer> {
  const first = await prober.trace({ inport: r.inport, packet: r.packet });
  const v = throughGateway(r, first, traceAnswer(r, first));
  if (v.allowed || !isRetransmitted(r.packet) || !unanswered(r, first)) return { ...v, first };
  const learned = learnedAffinity(first.stages);
  if (learned === undefined) return { ...v, first };
  const how = affinityRetrace(learned);
  const again = await prober.trace({
    inport: r.inport,
    packet: r.packet,
    registers: how.registers,
    ...(how.lbBackend !== undefined ? { lbBackend: how.lbBackend } : {}),
  });
  const w = traceAnswer(r, again);
  const note = retransmissionNote(r.packet, v.reason, { delivered: w.allowed, tracedWith: how.how });
  return { ...w, note, first, retransmission: again };
}

export class OvnWorld implements ProbeWorld {
  private constructor(
    private readonly cp: ControlPlane,
    readonly backend: OvnProber,
  ) {}

  static async start(): Promise<OvnWorld> {
    const cp = await startControlPlane({});
    try {
      const prober = await OvnProber.connect({ remotes: cp.nb.remote, sbRemote: cp.sb.remote, dir: cp.dir });
      return new OvnWorld(cp, prober);
    } catch (e) {
      await cp.stop();
      throw e;
    }
  }

  /** The NB database's remote (for inspection). */
  get nbRemote(): string {
    return this.cp.nb.remote;
  }

  /** The scenario's physical hosts (run.ts hands them over): the routers' MAC bindings for them. */
  hosts: readonly ScenarioHost[] = [];

  async ready(): Promise<void> {
    await this.backend.sync();
    if (this.hosts.length === 0) return;
    // What ovn-controller would have learned from the hosts' ARP answers (probe-hosts.ts hostNeighbors).
    const written = await writeMacBindings(this.cp.sb.remote, hostNeighbors(await this.backend.read(), this.hosts));
    if (written > 0) await this.backend.tracer.reload();
  }

  async answer(r: PacketProbe): Promise<{ allowed: boolean; reason?: string; note?: string }> {
    const { allowed, reason, note } = await ovnAnswer(this.backend, r);
    return { allowed, ...(reason !== undefined ? { reason } : {}), ...(note !== undefined ? { note } : {}) };
  }

  /** ovn-trace's text of the probe's first packet and of its retransmission, where answer() traced one. */
  async ovnTraces(r: PacketProbe): Promise<{ first: string; retransmission?: string }> {
    const a = await ovnAnswer(this.backend, r);
    const note = gatewayNote(r, a.gateway);
    const first =
      note === ''
        ? a.first.raw
        : r.natGateway?.direction === 'ingress'
          ? `${note}\n${a.first.raw}`
          : `${a.first.raw}\n${note}`;
    return { first, ...(a.retransmission !== undefined ? { retransmission: a.retransmission.raw } : {}) };
  }

  async close(): Promise<void> {
    await this.backend.close().catch(() => {});
    await this.cp.stop();
  }
}
