/**
 * The one place for what ovn-trace (OVN 23.03) does differently from the
 * OVN it traces, each as a rule with its reason and how we handle it. Found
 * by reading utilities/ovn-trace.c and controller/pinctrl.c of v23.03.1 and
 * by running ovn-trace (see the tests and fixtures beside this file).
 *
 * A rule is applied where the evidence is (the tree walk in verdict.ts, the
 * tracer's choice of daemon or one-shot run), and always recorded: a
 * TraceVerdict lists the rules it met (`quirks`), and `normalizeVerdict`
 * turns those that leave part of the verdict unknown into `caveats`. No
 * class of packets is skipped: a caveat says exactly what ovn-trace could
 * not show, so the differential test compares everything else.
 */
import type { FieldName } from '../../../sim/packet/fields.ts';
import type { Packet } from '../../../sim/packet/packet.ts';
import { flowMismatches } from './flow-line.ts';
import type { OvnTraceStage } from './parse.ts';
import type { TraceVerdict } from './verdict.ts';

export type QuirkId =
  | 'ct-states-consumed'
  | 'lb-random-backend'
  | 'lb-dst-early-dnat'
  | 'gateway-ct-snat-stops'
  | 'chassis-resident-everywhere'
  | 'generated-packets'
  | 'ct-snat-to-vip-not-applied'
  | 'ttl-underflow-continues'
  | 'no-unnat'
  | 'nat-ports-ignored'
  | 'microflow-dscp-ecn-ignored'
  | 'nd-na-router-abort'
  | 'daemon-reads-sb-once';

export interface QuirkRule {
  readonly id: QuirkId;
  /** What ovn-trace does. */
  readonly what: string;
  /** Why (the code that does it). */
  readonly why: string;
  /** What we do about it. */
  readonly handling: string;
}

export const QUIRKS: readonly QuirkRule[] = [
  {
    id: 'ct-states-consumed',
    what: 'Each ct action (ct_next, ct_lb*, ct_dnat/ct_snat on an untracked flow) takes the next --ct state; once they run out every one is est|trk ("/* default (use --ct to customize) */"). The daemon never rewinds them, across traces.',
    why: 'next_ct_state() advances a global ct_state_idx; the daemon\'s trace command takes no --ct.',
    handling: 'tracer.ts runs one daemon per uniform ct state, started with --ct=<state> repeated `ctBudget` times; it restarts the daemon before the budget runs low and retries a trace whose output shows the default comment. A per-action list of states goes to a one-shot ovn-trace.',
  },
  {
    id: 'lb-random-backend',
    what: 'Without --lb-dst, `ct_lb_mark(backends=...)` picks one of the backends at random (reservoir sampling with OVS random(), seeded by time and pid) and does not print which.',
    why: 'execute_ct_lb(): `if (!random_range(++n)) dst = d;`',
    handling: 'With one backend of the family the choice is known. With several, the tracer re-runs with --lb-dst set to the requested backend, or to the first one listed in the action when none was requested, and reports it as `lbBackend` so the simulator can be told to pick the same.',
  },
  {
    id: 'lb-dst-early-dnat',
    what: 'With --lb-dst, every plain `ct_lb_mark;` (ls_in_pre_stateful and ls_out_pre_stateful of any switch with a load balancer) DNATs a packet of that family to the --lb-dst address (and port) before the ACL stages, so the VIP flow of ls_in_lb no longer matches and from-lport ACLs see the backend instead of the VIP.',
    why: 'execute_ct_lb(): "For ct_lb without addresses, use user-specified address"; lb_dst is cleared only by a ct_lb with backends that matched it.',
    handling: 'The tracer traces twice: the exact trace without --lb-dst up to the random ct_lb, and the --lb-dst trace. If the latter took the same flows (by uuid) before that stage, its verdict is the answer; if not, the early DNAT changed a decision and the tracer throws OvnTracerError("lb-dst-diverged") naming both stages. A later plain ct_lb that changed the packet again becomes a caveat.',
  },
  {
    id: 'gateway-ct-snat-stops',
    what: 'On a datapath with an l3gateway port (gateway router), a bare `ct_snat;` (lr_in_unsnat for an SNAT external IP) ends that branch of the trace: no sub-tree, no output.',
    why: 'execute_ct_nat(): `if (!is_dst && dp->has_local_l3gateway && ct_nat->family == AF_UNSPEC) return;` ("has no visible effect in a gateway router").',
    handling: 'The branch ends with PathEnd "ct-snat-stop" and a caveat: ovn-trace shows the path up to lr_in_unsnat of that router and nothing after; the simulator must agree on that prefix, the rest cannot be compared.',
  },
  {
    id: 'chassis-resident-everywhere',
    what: '`is_chassis_resident("p")` is true for every port that exists (false for unknown ones), so traces always take the gateway chassis\'s view of distributed gateway ports and chassisredirect outputs are replaced by their distributed port.',
    why: 'ovntrace_is_chassis_resident(): "Since ovntrace is not chassis specific, assume any port that exists is resident."',
    handling: 'Nothing to normalize: the simulator must model the same single-chassis view (every port resident).',
  },
  {
    id: 'generated-packets',
    what: 'The packet ovn-trace seeds for generating actions differs from what pinctrl sends: tcp_reset keeps the ports, TTL 255, flags RST (pinctrl: ports swapped, TTL 63, RST|ACK); sctp_abort keeps the ports, TTL 255 (pinctrl: swapped, 63); reject of UDP gives ICMP code 1 (pinctrl: 3, IPv6: 4); nd_ns keeps the IPv6 addresses and SLL 0 (pinctrl: from the link-local address to the solicited-node group, SLL = eth.src, target = the original destination); ovn-trace keeps DSCP/ECN/flow label (pinctrl: 0) and the TTL for nd_na/nd_ns (pinctrl: 255).',
    why: 'execute_tcp_reset/execute_icmp4/execute_nd_ns in ovn-trace.c vs pinctrl_handle_tcp_reset/pinctrl_handle_icmp/pinctrl_handle_nd_ns in pinctrl.c.',
    handling: 'verdict.ts seeds generated packets as pinctrl does (`semantics: "ovn"`, the default) and records the rule; `semantics: "ovn-trace"` keeps ovn-trace\'s seeds.',
  },
  {
    id: 'ct-snat-to-vip-not-applied',
    what: '`ct_snat_to_vip` (LB hairpin) only prints "/* nat(src=VIP) */"; the flow keeps its source address.',
    why: 'execute_ct_snat_to_vip() appends a comment and changes nothing.',
    handling: 'With semantics "ovn" the source is set to the VIP, as OVS does.',
  },
  {
    id: 'ttl-underflow-continues',
    what: '`ip.ttl--` on TTL 0 prints "*** TTL underflow" and the trace goes on; OVS drops such a packet.',
    why: 'trace_actions(), OVNACT_DEC_TTL.',
    handling: 'With semantics "ovn" the branch produces no output after it (PathEnd "ttl-underflow").',
  },
  {
    id: 'no-unnat',
    what: 'A bare ct_dnat/ct_snat (undnat/unsnat of replies) never reverses a NAT: "assuming no un-dnat entry, so no change". Replies to NATed or load-balanced connections are traced with the addresses they carry.',
    why: 'execute_ct_nat() keeps no connection table.',
    handling: 'A trace with ct state est/rpl through a NAT or LB shows no un-NAT; such a trace gets a caveat when it passes a bare ct_dnat/ct_snat with a non-new ct state.',
  },
  {
    id: 'nat-ports-ignored',
    what: 'NAT with a port range (external_port_range) or a port changes only the address in ovn-trace.',
    why: 'execute_ct_nat() prints and sets only ip4/ip6 src/dst.',
    handling: 'Ports after NAT are ovn-trace\'s (unchanged); the caveat is recorded when the action text carries a port range.',
  },
  {
    id: 'microflow-dscp-ecn-ignored',
    what: 'ip.dscp and ip.ecn in a microflow are ignored: the flow line shows nw_tos=0, nw_ecn=0.',
    why: 'Observed with ovn-trace 23.03.1 (expr_parse_microflow drops the DSCP/ECN constraints).',
    handling: 'Outputs are computed from the flow ovn-trace traced; a packet with non-zero DSCP/ECN gets a caveat (ACLs on them are evaluated on 0).',
  },
  {
    id: 'nd-na-router-abort',
    what: 'A neighbour solicitation for a router port address reaches `nd_na_router { ... }` and ovn-trace aborts ("assertion ovnact->type == OVNACT_ND_NA failed in ovnact_get_ND_NA()"); the daemon dies with it.',
    why: 'trace_actions() handles OVNACT_ND_NA_ROUTER with ovnact_get_ND_NA().',
    handling: 'The tracer restarts the daemon and throws OvnTracerError("ovn-trace-aborted") with code; such packets have no ovn-trace verdict.',
  },
  {
    id: 'daemon-reads-sb-once',
    what: 'The ovn-trace daemon reads the southbound DB when it starts and never again.',
    why: 'main(): read_db() runs once (`already_read`).',
    handling: 'OvnTracer.reload() restarts its daemons; call it after every NB change has reached the SB.',
  },
];

export interface Caveat {
  readonly rule: QuirkId;
  readonly detail: string;
}

export interface NormalizedVerdict extends TraceVerdict {
  /** Parts of the verdict ovn-trace could not show (see QUIRKS). Empty: the verdict is complete. */
  readonly caveats: readonly Caveat[];
}

export interface NormalizeContext {
  /** The packet asked for. */
  readonly input: Packet;
  /** The packet ovn-trace traced (its flow line). */
  readonly traced: Packet;
  readonly stages: readonly OvnTraceStage[];
  /** ct states the trace ran with ('new' for a first packet). */
  readonly ct: string | readonly string[];
}

const DSCP_ECN: readonly FieldName[] = ['ip.dscp', 'ip.ecn'];

function restoreDscp(v: TraceVerdict, input: Packet): TraceVerdict['outputs'] {
  return v.outputs.map((o) => {
    if (o.generatedBy !== undefined) return o;
    const packet = { ...o.packet } as Record<string, unknown>;
    for (const f of DSCP_ECN) if (input[f] !== undefined && packet[f] !== undefined) packet[f] = input[f];
    return { ...o, packet: packet as unknown as Packet };
  });
}

/**
 * Turns the quirks a verdict met into caveats and undoes what can be undone
 * (DSCP/ECN ovn-trace dropped from the microflow are put back on outputs).
 *
 * @example
 * const n = normalizeVerdict(v, { input, traced, stages: t.stages, ct: 'new' });
 * if (n.caveats.length === 0) expect(simVerdict).toEqual(n.verdict);
 */
export function normalizeVerdict(v: TraceVerdict, ctx: NormalizeContext): NormalizedVerdict {
  const caveats: Caveat[] = [];
  for (const e of v.ends) {
    if (e.kind === 'ct-snat-stop') caveats.push({ rule: 'gateway-ct-snat-stops', detail: `${e.datapath} line ${e.line}: ${e.text}` });
  }
  const early = v.quirks.filter((q) => q.rule === 'lb-dst-early-dnat' && q.detail.includes('changed'));
  for (const q of early.slice(1)) caveats.push({ rule: 'lb-dst-early-dnat', detail: `line ${q.line}: ${q.detail}` });
  const lost = flowMismatches(ctx.input, ctx.traced).filter((f) => DSCP_ECN.includes(f) && ctx.input[f] !== 0);
  if (lost.length > 0) caveats.push({ rule: 'microflow-dscp-ecn-ignored', detail: `traced with ${lost.join(', ')} = 0` });
  const newOnly = typeof ctx.ct === 'string' ? ctx.ct === 'new' : ctx.ct.every((s) => s === 'new');
  for (const s of ctx.stages) {
    const nat = s.actions.find((a) => /^ct_(dnat|snat)(_in_czone)?;$/.test(a));
    if (nat !== undefined && !newOnly) caveats.push({ rule: 'no-unnat', detail: `${s.datapath} ${s.stage ?? s.table}: ${nat}` });
    const ranged = s.actions.find((a) => /^ct_(dnat|snat)(_in_czone)?\([^)]*,/.test(a));
    if (ranged !== undefined) caveats.push({ rule: 'nat-ports-ignored', detail: `${s.datapath} ${s.stage ?? s.table}: ${ranged}` });
  }
  return { ...v, outputs: restoreDscp(v, ctx.input), caveats };
}

/** Where two traces first take different flows, comparing the first `n` stages. */
export function firstDivergence(
  exact: readonly OvnTraceStage[],
  other: readonly OvnTraceStage[],
  n: number,
): { readonly index: number; readonly exact?: OvnTraceStage; readonly other?: OvnTraceStage } | undefined {
  for (let i = 0; i < n; i++) {
    const a = exact[i];
    const b = other[i];
    if (a?.uuid !== b?.uuid || a?.datapath !== b?.datapath || a?.table !== b?.table || a?.pipeline !== b?.pipeline) {
      return { index: i, ...(a === undefined ? {} : { exact: a }), ...(b === undefined ? {} : { other: b }) };
    }
  }
  return undefined;
}
