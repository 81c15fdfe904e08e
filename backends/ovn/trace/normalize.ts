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
import type { FieldName } from '../../../model/packet/fields.ts';
import type { Packet } from '../../../model/packet/packet.ts';
import { tryParseCIDR, tryParseMAC } from '../../../model/addr/index.ts';
import { flowMismatches } from './flow-line.ts';
import type { OvnTraceStage } from './parse.ts';
import type { TraceVerdict } from './verdict.ts';

export type QuirkId =
  | 'ct-states-consumed'
  | 'lb-random-backend'
  | 'lb-dst-early-dnat'
  | 'ovs-translation-limit'
  | 'gateway-ct-snat-stops'
  | 'chassis-resident-everywhere'
  | 'generated-packets'
  | 'ct-snat-to-vip-not-applied'
  | 'ttl-underflow-continues'
  | 'no-unnat'
  | 'nat-ports-ignored'
  | 'microflow-dscp-ecn-ignored'
  | 'nd-na-router-abort'
  | 'daemon-reads-sb-once'
  | 'port-sec-prefix-exact'
  | 'chk-lb-hairpin-vip-port'
  | 'ct-lb-ors-state'
  | 'patch-keeps-ct-state'
  | 'lb-affinity-not-executed';

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
    why: "next_ct_state() advances a global ct_state_idx; the daemon's trace command takes no --ct.",
    handling:
      'tracer.ts runs one daemon per uniform ct state, started with --ct=<state> repeated `ctBudget` times; it restarts the daemon before the budget runs low and retries a trace whose output shows the default comment. A per-action list of states goes to a one-shot ovn-trace.',
  },
  {
    id: 'lb-random-backend',
    what: 'Without --lb-dst, `ct_lb_mark(backends=...)` picks one of the backends at random (reservoir sampling with OVS random(), seeded by time and pid) and does not print which.',
    why: 'execute_ct_lb(): `if (!random_range(++n)) dst = d;`',
    handling:
      'With one backend of the family the choice is known. With several, the tracer re-runs with --lb-dst set to the requested backend, or to the first one listed in the action when none was requested, and reports it as `lbBackend` so the simulator can be told to pick the same.',
  },
  {
    id: 'ovs-translation-limit',
    what: 'ovn-trace has no limit on how deep a trace goes: a packet in a forwarding loop (routers rerouting it to each other) is followed hop by hop until its TTL runs out, and what it generates on the way (ICMP time exceeded) loops again, giving a text of thousands of nested pipelines.',
    why: 'trace__() in ovn-trace.c recurses with no depth check; OVS 3.1 xlate stops at MAX_DEPTH (64) nested resubmits or MAX_RESUBMITS (4096) resubmits ("over max translation depth"), dropping the packet, and OVN resubmits to the peer datapath\'s ingress for every logical patch port.',
    handling:
      'The tracer counts the pipelines of a trace and throws OvnTracerError("forwarding-loop") above MAX_TRACE_PIPELINES (256, the simulator\'s own bound on datapath passes) instead of reading it. OVS\'s own limits are modelled by neither side, so the differential test requires the simulator to have followed the loop a long way too (hit its own bound on datapath passes, or run at least 128 pipelines) and compares nothing else (rule forwarding-loop).',
  },
  {
    id: 'lb-dst-early-dnat',
    what: 'With --lb-dst, every plain `ct_lb_mark;` (ls_in_pre_stateful and ls_out_pre_stateful of any switch with a load balancer) DNATs a packet of that family to the --lb-dst address (and port) before the ACL stages, so the VIP flow of ls_in_lb no longer matches and from-lport ACLs see the backend instead of the VIP.',
    why: 'execute_ct_lb(): "For ct_lb without addresses, use user-specified address"; lb_dst is cleared only by a ct_lb with backends that matched it.',
    handling:
      'The tracer traces twice: the exact trace without --lb-dst up to the random ct_lb, and the --lb-dst trace. If the latter took the same flows (by uuid) before that stage, its verdict is the answer; if not, the early DNAT changed a decision and the tracer throws OvnTracerError("lb-dst-diverged") naming both stages. A later plain ct_lb that changed the packet again becomes a caveat.',
  },
  {
    id: 'gateway-ct-snat-stops',
    what: 'On a datapath with an l3gateway port (gateway router), a bare `ct_snat;` (lr_in_unsnat for an SNAT external IP) ends that branch of the trace: no sub-tree, no output.',
    why: 'execute_ct_nat(): `if (!is_dst && dp->has_local_l3gateway && ct_nat->family == AF_UNSPEC) return;` ("has no visible effect in a gateway router").',
    handling:
      'The branch ends with PathEnd "ct-snat-stop" and a caveat. The differential test then traces the packet again over a copy of the SB in which the l3gateway port bindings read as patch ports (OvnTracer.traceGatewaysAsPatches: that type sets has_local_l3gateway and nothing else in ovn-trace), where the trace goes on as OVS does for a packet without an SNAT entry; if it took the same flows up to the ct_snat it is compared in full (rule gateway-ct-snat-traced). Only otherwise does the partial comparison stay: the simulator must reach lr_in_unsnat of that router, the rest is unknown.',
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
    handling:
      'verdict.ts seeds generated packets as pinctrl does (`semantics: "ovn"`, the default) and records the rule; `semantics: "ovn-trace"` keeps ovn-trace\'s seeds. The flows a generated packet meets after that are still matched against ovn-trace\'s seed: where a tcp_reset/sctp_abort branch meets a flow on L4 ports (a to-lport reject ACL on the port), or the reply answers a non-IP frame (a reject ACL matching ARP: ovn-trace\'s ICMPv6 keeps the ARP flow, from :: to ::), the differential test does not compare that branch\'s outputs. pinctrl sends nothing at all for a non-IP frame (pinctrl_handle_icmp: "ICMP action on non-IP packet"), so with semantics "ovn" that branch has no outputs.',
  },
  {
    id: 'ct-snat-to-vip-not-applied',
    what: '`ct_snat_to_vip` (LB hairpin) only prints "/* nat(src=VIP) */"; the flow keeps its source address.',
    why: 'execute_ct_snat_to_vip() appends a comment and changes nothing.',
    handling:
      'With semantics "ovn" the source is set to the VIP, as OVS does, unless the load balancer has options:hairpin_snat_ip: then OVS uses its first address of the family (controller/lflow.c add_lb_vip_hairpin_flows: snat_vip = hairpin_snat_ips[0]). The trace does not name the load balancer, so a caller that knows the topology substitutes that address with hairpinSnatAddress() (the differential test does). Flows after it were matched with the old source, as OVS matches them too until the next ct action that recirculates (ct_snat_to_vip is a ct(commit,nat) without recirculation; real packets, seed 777 case 1433): where a flow past that recirculation tests the source and that test holds for one of the client and the VIP but not the other (the cause shown in the case, verify/difftest/quirks.ts snatToVipStale), the differential test does not compare what follows; a source test both addresses pass alike, or one it cannot resolve, excuses nothing.',
  },
  {
    id: 'ttl-underflow-continues',
    what: '`ip.ttl--` on TTL 1 makes it 0 and the trace goes on; on TTL 0 it prints "*** TTL underflow" and goes on. OVS forwards neither. (lr_in_ip_input normally answers TTL 0/1 before routing, but its priority-120 `inport == <gateway port> && ip.src == <SNAT external IP>` flow skips that check for the router\'s own SNAT traffic coming back through the egress loopback.)',
    why: 'trace_actions(), OVNACT_DEC_TTL: `if (uflow->nw_ttl) uflow->nw_ttl--;`. OVN encodes `ip.ttl--` as OVS dec_ttl (encode_DEC_TTL); OVS compose_dec_ttl() decrements only a TTL above 1, otherwise sends an OFPR_INVALID_TTL packet-in and stops, and pinctrl ignores packet-ins whose reason is not OFPR_ACTION (found by the differential test).',
    handling:
      'With semantics "ovn" the branch produces no output after the `ip.ttl--` on TTL 1 or the underflow on TTL 0 (PathEnd "ttl-underflow"); the simulator drops there.',
  },
  {
    id: 'no-unnat',
    what: 'A bare ct_dnat/ct_snat (undnat/unsnat of replies) never reverses a NAT: "assuming no un-dnat entry, so no change". Replies to NATed or load-balanced connections are traced with the addresses they carry.',
    why: 'execute_ct_nat() keeps no connection table.',
    handling:
      'A trace with ct state est/rpl through a NAT or LB shows no un-NAT; such a trace gets a caveat when it passes a bare ct_dnat/ct_snat with a non-new ct state.',
  },
  {
    id: 'nat-ports-ignored',
    what: 'NAT with a port range (external_port_range) or a port changes only the address in ovn-trace.',
    why: 'execute_ct_nat() prints and sets only ip4/ip6 src/dst.',
    handling:
      "Ports after NAT are ovn-trace's (unchanged); the caveat is recorded when the action text carries a port range.",
  },
  {
    id: 'microflow-dscp-ecn-ignored',
    what: 'ip.dscp and ip.ecn in a microflow are ignored: the flow line shows nw_tos=0, nw_ecn=0.',
    why: 'Observed with ovn-trace 23.03.1 (expr_parse_microflow drops the DSCP/ECN constraints).',
    handling:
      'Outputs are computed from the flow ovn-trace traced; a packet with non-zero DSCP/ECN gets a caveat (ACLs on them are evaluated on 0).',
  },
  {
    id: 'nd-na-router-abort',
    what: 'A neighbour solicitation for a router port address reaches `nd_na_router { ... }` and ovn-trace aborts ("assertion ovnact->type == OVNACT_ND_NA failed in ovnact_get_ND_NA()"); the daemon dies with it.',
    why: 'trace_actions() handles OVNACT_ND_NA_ROUTER with ovnact_get_ND_NA().',
    handling:
      'The tracer restarts the daemon and throws OvnTracerError("ovn-trace-aborted") with code; such packets have no ovn-trace verdict.',
  },
  {
    id: 'daemon-reads-sb-once',
    what: 'The ovn-trace daemon reads the southbound DB when it starts and never again.',
    why: 'main(): read_db() runs once (`already_read`).',
    handling: 'OvnTracer.reload() restarts its daemons; call it after every NB change has reached the SB.',
  },
  {
    id: 'port-sec-prefix-exact',
    what: 'check_in_port_sec()/check_out_port_sec() compare the packet\'s address with each port_security IP exactly, ignoring its prefix: an entry "MAC 10.0.0.0/24" lets only 10.0.0.0 through (ovn-controller lets the whole subnet through), and only the first entry with a matching MAC is tried (ovn-controller tries every entry).',
    why: 'execute_check_in_port_sec() / check_in_port_sec_ip4() in ovn-trace.c compare uflow->nw_src == ipv4_addrs[i].addr; controller/lflow.c build_in_port_sec_ip4_flows() (and the ARP, IPv6, ND and out_port_sec variants) match the masked network when the host bits are zero (found by the differential test).',
    handling:
      "portSecPrefixMismatch() tells, for a port's entries and a packet, whether ovn-trace denies what ovn-controller allows. Where it does and the trace dropped in that port's ls_in/ls_out_apply_port_sec, the differential test traces the case again with that address also listed exactly in the entry ovn-trace checks (ovn-controller admits the same packets; the simulator must give the same runs) and compares in full (rule port-sec-widened). Only if that is impossible does the rest of that branch stay unknown: then the other branches' outputs are compared and the simulator must not drop there.",
  },
  {
    id: 'chk-lb-hairpin-vip-port',
    what: "chk_lb_hairpin() is 0 for a load-balanced packet sent back to its own source through a VIP without a port (ovn-controller's hairpin flows match it: the client is hairpinned, SNATed to the VIP and sent back out of its port); it also checks only the first VIP with the original destination address of any load balancer.",
    why: 'execute_chk_lb_hairpin() in ovn-trace.c ANDs the result with `vip_port == ct_tp_dst`, and a VIP without a port has vip_port 0; controller/lflow.c add_lb_vip_hairpin_flows() adds the port match only when the backend has a port (found by the differential test).',
    handling:
      "Where a trace load-balances a packet to its own source through a port-less VIP, what follows ls_in_pre_hairpin is not OVN's: the differential test requires the simulator to hairpin there and compares nothing after it.",
  },
  {
    id: 'ct-lb-ors-state',
    what: "ct_lb/ct_lb_mark OR the next --ct state into the flow's ct_state (and ct_dnat/ct_snat keep it when the flow is tracked) instead of replacing it, and a packet generated by reject/icmp4/tcp_reset/sctp_abort keeps the ct_state of the packet it answers; so a generated reply meeting a ct_lb_mark (a switch with load balancers) still has ct.new whatever --ct says, where OVN's conntrack finds it related or established.",
    why: "execute_ct_lb(): `ct_lb_flow.ct_state |= next_ct_state(...)`; execute_ct_nat(): a state only `if (!(ct_flow.ct_state & CS_TRACKED))`; execute_tcp4_reset()/execute_icmp4() start from a copy of the flow. pinctrl sends a fresh packet, and OVS's ct() sets ct_state from its lookup (found by the differential test).",
    handling:
      "With only ct_next on a generated packet's path, the differential test traces again with per-action --ct states (rule ct-states-consumed). With a ct_lb*/ct_dnat/ct_snat there, the generated packet's branch is not OVN's: its outputs are not compared, the other outputs are, and the simulator must reach the generating stage.",
  },
  {
    id: 'patch-keeps-ct-state',
    what: "Crossing a patch port (switch ↔ router) keeps the flow's ct_state, conntrack tuple, registers and flags; ovn-controller clears them (ct_clear, zones, flags, registers) before the peer's ingress pipeline. So a switch entered from a router that did ct_dnat/ct_lb_mark still sees ct.trk (ls_in_acl_hint picks `ct.new && !ct.est` instead of `!ct.trk`; chk_lb_hairpin() can find the router's VIP and hairpin a packet OVN would not).",
    why: 'execute_output() in ovn-trace.c copies the flow to the peer with only inport/outport changed; controller/physical.c consider_port_binding() puts ct_clear and register/flag loads on patch ports (found by the differential test).',
    handling:
      'When a trace disagrees and an ingress pipeline entered over a patch matched conntrack state before its own first ct action, the differential test does not compare what follows (the simulator must reach that datapath).',
  },
  {
    id: 'lb-affinity-not-executed',
    what: "commit_lb_aff() learns nothing and chk_lb_aff() finds nothing: a trace never shows a client's later connection going to the backend an affinity load balancer learned for it (ls_in_lb's priority-150 flows); chk_lb_aff() leaves its result register as it was.",
    why: 'execute_actions() in ovn-trace.c has `case OVNACT_COMMIT_LB_AFF: break;` and `case OVNACT_CHK_LB_AFF: break;`; in OVS, commit_lb_aff is a learn into the table chk_lb_aff() resubmits to, whose flow loads reg9[6] = 1, the backend into reg4 (IPv4) or xxreg0 (IPv6) and its port into reg8[0..15] (lib/actions.c encode_COMMIT_LB_AFF).',
    handling:
      "A probe's TCP/SCTP retransmission after its first packet learned an affinity (scenarios/ovn-world.ts) is traced with those registers set in the microflow (lb-affinity.ts affinityRetrace), which no earlier stage of a switch reads or writes for IPv4; for an IPv6 backend (xxreg0 overlaps reg0..reg3, which earlier stages write) with reg9[6] set and --lb-dst naming the learned backend (ovn-trace DNATs to it at the first ct_lb_mark, rule lb-dst-early-dnat, instead of in ls_in_lb's 150 flow: the same packet leaves ls_in_lb_aff_learn).",
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
    if (e.kind === 'ct-snat-stop')
      caveats.push({ rule: 'gateway-ct-snat-stops', detail: `${e.datapath} line ${e.line}: ${e.text}` });
  }
  const early = v.quirks.filter((q) => q.rule === 'lb-dst-early-dnat' && q.detail.includes('changed'));
  for (const q of early.slice(1)) caveats.push({ rule: 'lb-dst-early-dnat', detail: `line ${q.line}: ${q.detail}` });
  const lost = flowMismatches(ctx.input, ctx.traced).filter((f) => DSCP_ECN.includes(f) && ctx.input[f] !== 0);
  if (lost.length > 0)
    caveats.push({ rule: 'microflow-dscp-ecn-ignored', detail: `traced with ${lost.join(', ')} = 0` });
  const newOnly = typeof ctx.ct === 'string' ? ctx.ct === 'new' : ctx.ct.every((s) => s === 'new');
  for (const s of ctx.stages) {
    const nat = s.actions.find((a) => /^ct_(dnat|snat)(_in_czone)?;$/.test(a));
    if (nat !== undefined && !newOnly)
      caveats.push({ rule: 'no-unnat', detail: `${s.datapath} ${s.stage ?? s.table}: ${nat}` });
    const ranged = s.actions.find((a) => /^ct_(dnat|snat)(_in_czone)?\([^)]*,/.test(a));
    if (ranged !== undefined)
      caveats.push({ rule: 'nat-ports-ignored', detail: `${s.datapath} ${s.stage ?? s.table}: ${ranged}` });
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

/** An "IP/plen" port-security entry with zero host bits matches its whole network in ovn-controller. */
function prefixOf(word: string): { readonly family: 4 | 6; readonly net: bigint; readonly plen: number } | undefined {
  const c = tryParseCIDR(word);
  if (c === undefined) return undefined;
  const max = c.family === 4 ? 32 : 128;
  const value = BigInt(c.ip);
  const host = (1n << BigInt(max - c.prefix)) - 1n;
  if (c.prefix === max || (value & host) !== 0n) return undefined;
  return { family: c.family, net: value, plen: c.prefix };
}

/**
 * Rule `port-sec-prefix-exact`: does ovn-trace deny `packet` at a port with
 * these port_security `entries` where ovn-controller allows it? The
 * address checked is ip4.src / arp.spa / ip6.src going in, ip4.dst /
 * ip6.dst going out, against the entries whose MAC is the packet's (eth.src
 * in, eth.dst out). ovn-controller: some such entry has no IP at all, or
 * holds the address (a zero-host-bits prefix as its network). ovn-trace:
 * the first such entry has no IP, or lists the address exactly.
 *
 * @example portSecPrefixMismatch(['0a:00:00:00:00:01 10.0.0.0/24'], udpFrom('10.0.0.5'), 'in') // true
 */
export function portSecPrefixMismatch(entries: readonly string[], packet: Packet, direction: 'in' | 'out'): boolean {
  const mac = direction === 'in' ? packet['eth.src'] : packet['eth.dst'];
  const addr =
    direction === 'in'
      ? (packet['ip4.src'] ?? packet['arp.spa'] ?? packet['ip6.src'])
      : (packet['ip4.dst'] ?? packet['ip6.dst']);
  if (addr === undefined) return false;
  const family = typeof addr === 'bigint' ? 6 : 4;
  const value = BigInt(addr);
  const matching = entries.map((e) => e.trim().split(/\s+/)).filter(([m]) => m !== undefined && tryParseMAC(m) === mac);
  const ips = (words: readonly string[]) => words.slice(1).flatMap((w) => tryParseCIDR(w, { allowBare: true }) ?? []);
  const exact = (words: readonly string[]) => ips(words).some((c) => c.family === family && BigInt(c.ip) === value);
  const masked = (words: readonly string[]) =>
    words.slice(1).some((w) => {
      const p = prefixOf(w);
      if (p === undefined || p.family !== family) return false;
      const shift = BigInt((family === 4 ? 32 : 128) - p.plen);
      return value >> shift === p.net >> shift;
    });
  const first = matching[0];
  if (first === undefined) return false;
  const traceAllows = ips(first).length === 0 || exact(first);
  const controllerAllows = matching.some((w) => ips(w).length === 0 || exact(w) || masked(w));
  return controllerAllows && !traceAllows;
}

/**
 * Rule `ct-snat-to-vip-not-applied`: the address OVS really SNATs a
 * hairpinned packet to, given the load balancer's options: its first
 * hairpin_snat_ip of the family, else undefined (the VIP itself).
 *
 * @example hairpinSnatAddress({ hairpin_snat_ip: '169.254.0.5 fd69::5' }, 6) // 'fd69::5'
 */
export function hairpinSnatAddress(options: Readonly<Record<string, string>>, family: 4 | 6): string | undefined {
  const list = (options.hairpin_snat_ip ?? '').split(/[\s,]+/).filter((w) => w !== '');
  return list.find((w) => (w.includes(':') ? 6 : 4) === family);
}
