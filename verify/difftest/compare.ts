/**
 * What the differential test compares, and how: both sides reduced to an
 * {@link Observed} (delivered or dropped, and per output the port and the
 * packet's MACs, IPs, L4 ports, TTL, ICMP type/code, ARP and ND fields),
 * then a structured diff. Outputs compare as multisets: ovn-trace and the
 * simulator may list flood copies in different orders.
 *
 * Whether an output was generated (an ARP reply, an ICMP error) is recorded
 * but not compared: ovn-trace marks only packets made by generating actions
 * (`icmp4 {}`), not the in-place answers of the router (echo replies) or the
 * ARP responder; the fields tell the packets apart anyway.
 *
 * Partial comparisons: where a documented ovn-trace quirk (normalize.ts)
 * leaves part of OVN's verdict unknown, quirks.ts marks it ({@link
 * PartialRule}) and only what is known is compared: OVN's other outputs
 * must be among the simulator's, what OVN delivers the simulator delivers,
 * where only generated replies are unknown the simulator forwards nothing
 * more than OVN, and the simulator must do what OVN does at the quirk
 * point (reach the gateway's lr_in_unsnat, pass the port security
 * ovn-trace misjudged, hairpin, make the LB choice). What lies beyond is
 * not compared. Such cases agree but are counted apart; the datapath judges
 * them in full (three-way.ts).
 */
import type { FieldName } from '../../model/packet/fields.ts';
import { packetToJSON } from '../../model/packet/format.ts';
import type { Packet } from '../../model/packet/packet.ts';
import type { SimResult } from '../../sim/simulate.ts';
import type { OvnTraceResult } from '../../backends/ovn/trace/index.ts';

/** Fields compared on every output (those a packet has). */
export const COMPARED_FIELDS: readonly FieldName[] = [
  'eth.src',
  'eth.dst',
  'eth.type',
  'arp.op',
  'arp.spa',
  'arp.tpa',
  'arp.sha',
  'arp.tha',
  'ip.ttl',
  'ip4.src',
  'ip4.dst',
  'ip6.src',
  'ip6.dst',
  'icmp4.type',
  'icmp4.code',
  'icmp6.type',
  'icmp6.code',
  'nd.target',
  'nd.tll',
  'tcp.src',
  'tcp.dst',
  'udp.src',
  'udp.dst',
  'sctp.src',
  'sctp.dst',
];

export interface ObservedOutput {
  readonly port: string;
  /** What generated it (simulator kind or ovn-trace action), if it was generated. */
  readonly generated?: string;
  /** The compared fields, as OVN prints them. */
  readonly packet: Readonly<Record<string, string>>;
}

/** A part of OVN's verdict ovn-trace cannot show (normalize.ts rule ids), and what is still checked. */
export type PartialRule =
  /** A gateway router's bare ct_snat ended the branch: the simulator must reach lr_in_unsnat there. */
  | { readonly rule: 'gateway-ct-snat-stops'; readonly routers: readonly string[] }
  /** ovn-trace dropped at these port securities that OVN passes: the simulator must not drop there. */
  | {
      readonly rule: 'port-sec-prefix-exact';
      readonly at: readonly { readonly datapath: string; readonly stage: string; readonly port: string }[];
    }
  /** OVN hairpins at this switch where ovn-trace does not: the simulator must hairpin there. */
  | { readonly rule: 'chk-lb-hairpin-vip-port'; readonly switch: string }
  /** ovn-trace's --lb-dst run diverged (no verdict): the simulator must load-balance the packet. */
  | { readonly rule: 'lb-dst-early-dnat'; readonly detail: string }
  /**
   * ovn-trace followed a forwarding loop OVS cuts short (normalize.ts ovs-translation-limit): the simulator must find
   * the loop.
   */
  | { readonly rule: 'forwarding-loop'; readonly detail: string }
  /**
   * Not partial: a generated reply passed conntrack, so OVN was traced with
   * the per-action ct states the simulator's conntrack reported (listed);
   * everything is compared.
   */
  | { readonly rule: 'ct-states-consumed'; readonly detail: string }
  /**
   * Not partial: ovn-trace misjudged these port securities (port-sec-prefix-exact), so OVN was
   * traced again with the address it checks listed exactly in the entry it checks (ovn-controller
   * admits the same packets either way, and so does the simulator); everything is compared.
   */
  | {
      readonly rule: 'port-sec-widened';
      readonly at: readonly {
        readonly port: string;
        readonly stage: string;
        readonly entry: string;
        readonly widened: string;
      }[];
    }
  /**
   * Not partial: a gateway router's bare ct_snat ended ovn-trace's branch (gateway-ct-snat-stops), so OVN was
   * traced again over a copy of the SB where the gateway's l3gateway ports read as patches (the only effect of
   * that type in ovn-trace is the early return); the two traces took the same flows up to the ct_snat, and
   * everything is compared.
   */
  | { readonly rule: 'gateway-ct-snat-traced'; readonly routers: readonly string[] }
  /**
   * Generated replies whose branch in ovn-trace is not OVN's (ct_lb* on it, or flows matching the
   * ports ovn-trace's tcp_reset keeps): their outputs are unknown; the simulator must reach the
   * generating stages.
   */
  | { readonly rule: 'ct-lb-ors-state' | 'generated-packets'; readonly at: readonly StageRef[] }
  /**
   * ovn-trace matched conntrack state OVN clears at a patch port: what follows is unknown; the simulator must reach
   * those datapaths.
   */
  | { readonly rule: 'patch-keeps-ct-state'; readonly at: readonly StageRef[] }
  /**
   * ovn-trace went on with the client's source after ct_snat_to_vip: what follows is unknown; the simulator must
   * hairpin-SNAT there.
   */
  | { readonly rule: 'ct-snat-to-vip-not-applied'; readonly switch: string };

export interface StageRef {
  readonly datapath: string;
  readonly stage: string;
}

export interface Observed {
  readonly verdict: 'delivered' | 'dropped';
  readonly outputs: readonly ObservedOutput[];
  /** OVN only: caveats of the trace (normalize.ts rule ids). */
  readonly caveats?: readonly string[];
  /** OVN only: what ovn-trace could not show; empty or absent: the verdict is complete. */
  readonly partial?: readonly PartialRule[];
  /** Simulator only: what the partial comparisons check. */
  readonly path?: {
    /** `datapath/stage` of every stage recorded. */
    readonly stages: readonly string[];
    /** `datapath/stage` of every drop. */
    readonly drops: readonly string[];
    readonly lbChoices: number;
    /** Datapath pipelines the simulator ran. */
    readonly passes?: number;
  };
}

/**
 * Against real packets also the DSCP (QoS marking): ovn-trace's output
 * packets carry only what its microflow set, the datapath's frames every
 * header field.
 */
export const DATAPATH_FIELDS: readonly FieldName[] = [...COMPARED_FIELDS, 'ip.dscp'];

/** A packet's compared fields, as OVN prints them. */
export function fieldsOfPacket(p: Packet, fields: readonly FieldName[] = COMPARED_FIELDS): Record<string, string> {
  const all = packetToJSON(p);
  const out: Record<string, string> = {};
  for (const f of fields) if (all[f] !== undefined) out[f] = all[f];
  return out;
}

export function observeSim(r: SimResult, fields: readonly FieldName[] = COMPARED_FIELDS): Observed {
  return {
    verdict: r.verdict,
    outputs: r.outputs.map((o) => ({
      port: o.port,
      ...(o.generated ? { generated: o.generated } : {}),
      packet: fieldsOfPacket(o.packet, fields),
    })),
    path: {
      stages: [...new Set(r.stages.map((s) => `${s.datapath}/${s.stage}`))],
      drops: r.drops.map((d) => `${d.datapath}/${d.stage}`),
      lbChoices: r.choices.filter((c) => c.kind === 'lb-backend').length,
      passes: r.passes,
    },
  };
}

/** OVN's observation; `partial` comes from quirks.ts (it needs the topology). */
export function observeOvn(
  r: Pick<OvnTraceResult, 'verdict' | 'outputs' | 'caveats'>,
  partial: readonly PartialRule[] = [],
): Observed {
  return {
    verdict: r.verdict,
    outputs: r.outputs.map((o) => ({
      port: o.outport,
      ...(o.generatedBy ? { generated: o.generatedBy } : {}),
      packet: fieldsOfPacket(o.packet),
    })),
    ...(r.caveats.length ? { caveats: r.caveats.map((c) => c.rule) } : {}),
    ...(partial.length ? { partial } : {}),
  };
}

export interface FieldDiff {
  readonly field: string;
  readonly sim?: string;
  readonly ovn?: string;
}

/** How the simulator's observation differs from OVN's; undefined when they agree. */
export interface VerdictDiff {
  readonly verdict?: { readonly sim: string; readonly ovn: string };
  /** Outputs only one side has (by port), with their packets. */
  readonly onlySim: readonly ObservedOutput[];
  readonly onlyOvn: readonly ObservedOutput[];
  /** Outputs on the same port whose packets differ. */
  readonly changed: readonly { readonly port: string; readonly fields: readonly FieldDiff[] }[];
  /** Set when only a prefix was comparable (see the file header). */
  readonly partial?: string;
}

const keyOf = (o: ObservedOutput): string => `${o.port} ${JSON.stringify(o.packet)}`;

function fieldDiffs(sim: Readonly<Record<string, string>>, ovn: Readonly<Record<string, string>>): FieldDiff[] {
  const names = [...new Set([...Object.keys(sim), ...Object.keys(ovn)])];
  return names
    .filter((f) => sim[f] !== ovn[f])
    .map((f) => ({
      field: f,
      ...(sim[f] !== undefined ? { sim: sim[f] } : {}),
      ...(ovn[f] !== undefined ? { ovn: ovn[f] } : {}),
    }));
}

/** Multiset difference: exact matches cancel; leftovers on the same port pair up in order. */
function diffOutputs(sim: readonly ObservedOutput[], ovn: readonly ObservedOutput[]) {
  const left = [...sim];
  const right: ObservedOutput[] = [];
  for (const o of ovn) {
    const i = left.findIndex((s) => keyOf(s) === keyOf(o));
    if (i >= 0) left.splice(i, 1);
    else right.push(o);
  }
  const changed: { port: string; fields: FieldDiff[] }[] = [];
  const onlyOvn: ObservedOutput[] = [];
  for (const o of right) {
    const i = left.findIndex((s) => s.port === o.port);
    if (i < 0) {
      onlyOvn.push(o);
      continue;
    }
    changed.push({ port: o.port, fields: fieldDiffs(left[i]!.packet, o.packet) });
    left.splice(i, 1);
  }
  return { onlySim: left, onlyOvn, changed };
}

/** Rules under which OVN was traced again and everything is compared: not partial comparisons. */
export const FULL_RULES: ReadonlySet<PartialRule['rule']> = new Set([
  'ct-states-consumed',
  'port-sec-widened',
  'gateway-ct-snat-traced',
]);

/**
 * @example
 * const d = compareObserved(observeSim(simResult), observeOvn(ovnResult));
 * if (d) console.log(formatDiff(d));
 */
export function compareObserved(sim: Observed, ovn: Observed): VerdictDiff | undefined {
  if (ovn.partial?.some((p) => !FULL_RULES.has(p.rule))) return comparePartial(sim, ovn, ovn.partial);
  const d = diffOutputs(sim.outputs, ovn.outputs);
  const verdict = sim.verdict === ovn.verdict ? undefined : { sim: sim.verdict, ovn: ovn.verdict };
  if (verdict === undefined && d.onlySim.length === 0 && d.onlyOvn.length === 0 && d.changed.length === 0)
    return undefined;
  return { ...(verdict ? { verdict } : {}), ...d };
}

/** Datapath passes that count as following a forwarding loop: half the tracer's MAX_TRACE_PIPELINES. */
const LOOP_PASSES = 128;

/** What the simulator failed to do at a quirk point, or undefined. */
function partialFailure(sim: Observed, p: PartialRule): string | undefined {
  const path = sim.path ?? { stages: [], drops: [], lbChoices: 0 };
  switch (p.rule) {
    case 'gateway-ct-snat-stops': {
      const missed = p.routers.filter((r) => !path.stages.includes(`${r}/lr_in_unsnat`));
      return missed.length ? `did not reach lr_in_unsnat of ${missed.join(', ')}` : undefined;
    }
    case 'port-sec-prefix-exact': {
      const hit = p.at.filter((a) => path.drops.includes(`${a.datapath}/${a.stage}`));
      return hit.length
        ? `dropped at ${hit.map((a) => `${a.datapath} ${a.stage} (${a.port})`).join(', ')}, which OVN passes`
        : undefined;
    }
    case 'chk-lb-hairpin-vip-port':
      return path.stages.includes(`${p.switch}/ls_in_pre_hairpin`) ? undefined : `did not hairpin at ${p.switch}`;
    case 'lb-dst-early-dnat':
      return path.lbChoices > 0 ? undefined : 'made no load-balancer choice';
    case 'forwarding-loop':
      // OVS cuts a loop at its translation limits, which neither side models exactly: the simulator
      // must have followed the loop a long way too (found it, or half the tracer's bound).
      return path.drops.some((d) => d.endsWith('/-')) || (path.passes ?? 0) >= LOOP_PASSES
        ? undefined
        : `found no forwarding loop (${path.passes ?? 0} datapath passes)`;
    case 'ct-states-consumed':
    case 'port-sec-widened':
    case 'gateway-ct-snat-traced':
      return undefined;
    case 'ct-lb-ors-state':
    case 'generated-packets': {
      const missed = p.at.filter((a) => !path.stages.includes(`${a.datapath}/${a.stage}`));
      return missed.length
        ? `did not reach ${missed.map((a) => `${a.datapath} ${a.stage}`).join(', ')}, where OVN generates a reply`
        : undefined;
    }
    case 'patch-keeps-ct-state': {
      const missed = p.at.filter((a) => !path.stages.some((st) => st.startsWith(`${a.datapath}/`)));
      return missed.length ? `never reached ${missed.map((a) => a.datapath).join(', ')}` : undefined;
    }
    case 'ct-snat-to-vip-not-applied':
      return path.stages.includes(`${p.switch}/ls_in_nat_hairpin`) ? undefined : `did not hairpin-SNAT at ${p.switch}`;
  }
}

/** Whether OVN's outputs outside the quirk's branch are still OVN's. */
const UNKNOWN_OUTPUTS: ReadonlySet<PartialRule['rule']> = new Set([
  'chk-lb-hairpin-vip-port',
  'lb-dst-early-dnat',
  'forwarding-loop',
  'patch-keeps-ct-state',
  'ct-snat-to-vip-not-applied',
]);
const outputsKnown = (p: PartialRule): boolean => !UNKNOWN_OUTPUTS.has(p.rule);

/** Rules whose unknown part is only what generated replies do: everything else is still OVN's. */
const ONLY_GENERATED_UNKNOWN: ReadonlySet<PartialRule['rule']> = new Set(['ct-lb-ors-state', 'generated-packets']);

function comparePartial(sim: Observed, ovn: Observed, partial: readonly PartialRule[]): VerdictDiff | undefined {
  const failures = partial.flatMap((p) => {
    const f = partialFailure(sim, p);
    return f === undefined ? [] : [`${p.rule}: ${f}`];
  });
  const generatedUnknown = partial.some((p) => ONLY_GENERATED_UNKNOWN.has(p.rule));
  // ct-lb-ors-state, generated-packets: the outputs of generated replies are not OVN's.
  const known = generatedUnknown ? ovn.outputs.filter((o) => o.generated === undefined) : ovn.outputs;
  const d = partial.every(outputsKnown) ? diffOutputs(sim.outputs, known) : { onlySim: [], onlyOvn: [], changed: [] };
  // The verdict is still compared where OVN's own outputs show it: what OVN delivers, the simulator delivers.
  if (known.length > 0 && sim.verdict === 'dropped') failures.push('dropped what OVN delivers');
  // And where only generated replies are unknown, the simulator may have no forwarded output OVN lacks.
  const onlySim = partial.every((p) => ONLY_GENERATED_UNKNOWN.has(p.rule))
    ? d.onlySim.filter((o) => o.generated === undefined)
    : [];
  if (failures.length === 0 && onlySim.length === 0 && d.onlyOvn.length === 0 && d.changed.length === 0)
    return undefined;
  return {
    ...(failures.length ? { verdict: { sim: failures.join('; '), ovn: 'as documented in normalize.ts' } } : {}),
    onlySim,
    onlyOvn: d.onlyOvn,
    changed: d.changed,
    partial: partial.map((p) => p.rule).join(', '),
  };
}

function describe(o: ObservedOutput): string {
  const p = o.packet;
  const ip = p['ip4.src'] ?? p['ip6.src'];
  const what =
    ip !== undefined
      ? `${ip} > ${p['ip4.dst'] ?? p['ip6.dst']}`
      : `arp ${p['arp.op']} ${p['arp.spa']} > ${p['arp.tpa']}`;
  return `${o.port}${o.generated ? ` (${o.generated})` : ''}: ${p['eth.src']} > ${p['eth.dst']} ${what}${p['ip.ttl'] ? ` ttl ${p['ip.ttl']}` : ''}`;
}

/** Human form, one line per difference. */
export function formatDiff(d: VerdictDiff): string {
  const lines: string[] = [];
  if (d.partial) lines.push(`(partial: ${d.partial})`);
  if (d.verdict) lines.push(`verdict: sim ${d.verdict.sim}, ovn ${d.verdict.ovn}`);
  for (const o of d.onlySim) lines.push(`only sim: ${describe(o)}`);
  for (const o of d.onlyOvn) lines.push(`only ovn: ${describe(o)}`);
  for (const c of d.changed)
    lines.push(`${c.port}: ${c.fields.map((f) => `${f.field} sim ${f.sim ?? '-'} ovn ${f.ovn ?? '-'}`).join(', ')}`);
  return lines.join('\n');
}
