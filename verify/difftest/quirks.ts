/**
 * Applies the ovn-trace quirks of normalize.ts that need the case (the
 * topology's port security, the packet, the LB backend agreed on) to tell
 * where a trace stops being OVN's verdict, as {@link PartialRule}s for the
 * comparison, and finds the artefacts evaluate.ts looks for when a trace
 * disagrees (generated branches, stale conntrack state over patch ports,
 * the source ct_snat_to_vip left unchanged). The rules themselves, with
 * their reasons, are documented in backends/ovn/trace/normalize.ts; nothing
 * here skips a case.
 */
import { tryParseIP } from '../../model/addr/index.ts';
import {
  evaluateMatch,
  forEachComparison,
  type MatchExpr,
  packetFromRecord,
  tryParseMatch,
} from '../../model/match/index.ts';
import { ETH_TYPE_IP, ETH_TYPE_IPV6 } from '../../model/packet/fields.ts';
import { matchEnvOf } from '../../model/topology/index.ts';
import { compileVips } from '../../sim/compile/lb.ts';
import { ipSrc } from '../../model/packet/packet.ts';
import {
  hairpinSnatAddress,
  type OvnTraceResult,
  type TraceNode,
  lbSelectorOf,
  parseTrace,
  recirculatingCt,
} from '../../backends/ovn/trace/index.ts';
import type { DiffCase } from './case.ts';
import type { Observed, PartialRule } from './compare.ts';
import { portSecRule } from './port-sec.ts';

/** A port-less VIP load-balancing the packet to its own source (chk_lb_hairpin in ovn-trace says no). */
function hairpinRule(c: DiffCase, r: Pick<OvnTraceResult, 'stages' | 'lbBackend'>): PartialRule | undefined {
  const src = ipSrc(c.packet);
  if (src === undefined) return undefined;
  for (const s of r.stages) {
    if (s.match === undefined || /\b(tcp|udp|sctp)\.dst\b/.test(s.match)) continue;
    let list: string | undefined;
    if (s.stage === 'ls_in_lb')
      list = s.actions.map((a) => /^ct_lb(_mark)?\(backends=([^;)]*)/.exec(a)?.[2]).find((x) => x !== undefined);
    // With --lb-dst the bare ct_lb_mark of ls_in_pre_stateful has DNATed already (rule lb-dst-early-dnat)
    // and the trace shows no ls_in_lb: the VIP is in that flow's match, its backends in the topology.
    else if (s.stage === 'ls_in_pre_stateful' && s.actions.includes('ct_lb_mark;'))
      list = portlessVipBackends(c, s.datapath, s.match);
    if (list === undefined || list.trim() === '') continue;
    const backends = list.split(',').map((b) => lbSelectorOf(b.trim()));
    const chosen =
      r.lbBackend === undefined ? (backends.length === 1 ? backends[0] : undefined) : lbSelectorOf(r.lbBackend);
    if (chosen !== undefined && chosen.ip === src) return { rule: 'chk-lb-hairpin-vip-port', switch: s.datapath };
  }
  return undefined;
}

/**
 * The backends of the port-less VIP `ip4.dst == A` / `ip6.dst == A` in `match`, on switch `sw` (as the simulator
 * compiles them).
 */
function portlessVipBackends(c: DiffCase, sw: string, match: string): string | undefined {
  const text = /\bip[46]\.dst == ([0-9a-fA-F.:]+)/.exec(match)?.[1];
  const ip = text === undefined ? undefined : tryParseIP(text);
  const ls = c.topology.switch.get(sw);
  if (ip === undefined || ls === undefined) return undefined;
  for (const name of ls.loadBalancers) {
    const lb = c.topology.loadBalancer.get(name);
    const vip = lb && compileVips(lb, []).find((v) => v.port === undefined && v.ip === ip.value);
    if (vip) return vip.backends.map((b) => b.text).join(',');
  }
  return undefined;
}

/**
 * The parts of OVN's verdict this trace cannot show.
 *
 * @example partialRules(c, traced) // [{ rule: 'port-sec-prefix-exact', at: [{ datapath: 'ls0', stage: 'ls_in_apply_port_sec', port: 'pod0.ls0' }] }]
 */
export function partialRules(
  c: DiffCase,
  r: Pick<OvnTraceResult, 'raw' | 'stages' | 'ends' | 'lbBackend'>,
): PartialRule[] {
  const out: PartialRule[] = [];
  const routers = [...new Set(r.ends.filter((e) => e.kind === 'ct-snat-stop').map((e) => e.datapath))];
  if (routers.length) out.push({ rule: 'gateway-ct-snat-stops', routers });
  const ps = portSecRule(c, r);
  if (ps) out.push(ps);
  const hp = hairpinRule(c, r);
  if (hp) out.push(hp);
  return out;
}

/**
 * Rule ct-snat-to-vip-not-applied: verdict.ts sets a hairpinned packet's
 * source to the VIP; with the VIP's load balancer's options:hairpin_snat_ip
 * OVS uses that address instead. Rewrites OVN's outputs accordingly.
 */
export function withHairpinSnatIp(c: DiffCase, r: Pick<OvnTraceResult, 'quirks'>, o: Observed): Observed {
  const vips = r.quirks.filter((q) => q.rule === 'ct-snat-to-vip-not-applied').map((q) => q.detail);
  if (vips.length === 0) return o;
  const swap = new Map<string, string>();
  for (const vip of vips) {
    const family = vip.includes(':') ? 6 : 4;
    const lb = [...c.topology.loadBalancer.values()].find((l) =>
      Object.keys(l.vips).some((k) => vipAddress(k) === vip),
    );
    const to = lb && hairpinSnatAddress(lb.options, family);
    if (to !== undefined) swap.set(vip, to);
  }
  if (swap.size === 0) return o;
  const outputs = o.outputs.map((out) => {
    const field = out.packet['ip4.src'] !== undefined ? 'ip4.src' : 'ip6.src';
    const to = swap.get(out.packet[field] ?? '');
    return to === undefined || out.generated !== undefined ? out : { ...out, packet: { ...out.packet, [field]: to } };
  });
  return { ...o, outputs };
}

/** The address of a VIP key ("10.0.0.1:80", "[fd00::1]:80", "10.0.0.1"). */
function vipAddress(key: string): string {
  const v6 = /^\[([^\]]+)\]/.exec(key);
  if (v6) return v6[1] ?? '';
  return key.includes('.') ? (key.split(':')[0] ?? '') : key;
}

/** A packet generated in the trace (reject/icmp4/tcp_reset/...) and what its branch meets. */
export interface GeneratedBranch {
  /** The datapath and stage of the flow whose action generated it. */
  readonly datapath: string;
  readonly stage: string;
  readonly kind: string;
  /**
   * ct actions on the branch (ct_next gets its --ct state assigned; the others OR or keep it: rule ct-lb-ors-state).
   */
  readonly cts: readonly string[];
  /**
   * The branch meets flows matched on fields where ovn-trace's seed differs from pinctrl's (rule generated-packets):
   * L4 ports tcp_reset/sctp_abort keep unswapped, or anything when answering a non-IP frame.
   */
  readonly portSensitive: boolean;
}

const GENERATING = /^(icmp4|icmp6|tcp_reset|sctp_abort|reject)\b/;

function tablesUnder(nodes: readonly TraceNode[]): Extract<TraceNode, { kind: 'table' }>[] {
  return nodes.flatMap((n) =>
    n.kind === 'leaf' ? [] : [...(n.kind === 'table' ? [n] : []), ...tablesUnder(n.children)],
  );
}

function ctsUnder(nodes: readonly TraceNode[]): string[] {
  return nodes.flatMap((n) =>
    n.kind === 'leaf'
      ? []
      : [...(n.kind === 'transform' && /^ct_/.test(n.text) ? [n.text] : []), ...ctsUnder(n.children)],
  );
}

/**
 * @param nonIpInput the traced packet is not IP (an ARP a reject answers): ovn-trace's seed of the
 *   generated ICMP keeps the ARP flow's fields, so no flow the branch meets is matched as OVN would.
 */
export function generatedBranches(raw: string, nonIpInput = false): GeneratedBranch[] {
  const out: GeneratedBranch[] = [];
  const walk = (nodes: readonly TraceNode[], dp: string, stage: string): void => {
    for (const n of nodes) {
      if (n.kind === 'leaf') continue;
      if (n.kind === 'transform' && GENERATING.test(n.text)) {
        const kind = GENERATING.exec(n.text)?.[1] ?? n.text;
        const ported = kind === 'tcp_reset' || kind === 'sctp_abort';
        const portSensitive =
          nonIpInput ||
          (ported && tablesUnder(n.children).some((t) => /\b(tcp|sctp)\.(src|dst)\b/.test(t.match ?? '')));
        out.push({ datapath: dp, stage, kind, cts: ctsUnder(n.children), portSensitive });
        continue;
      }
      walk(n.children, n.kind === 'pipeline' ? n.datapath : dp, n.kind === 'table' ? (n.stage ?? stage) : stage);
    }
  };
  walk(parseTrace(raw).root, '', '');
  return out;
}

/** A match that needs a conntrack state bit set (not just `!ct.trk`). */
const POSITIVE_CT = /(^|[^!])\bct\.(trk|new|est|rel|rpl|inv)\b/;

/**
 * Rule patch-keeps-ct-state: flows of an ingress pipeline entered over a
 * patch port (or by a generated packet), before that pipeline's first ct
 * action, that ovn-trace matched on conntrack state OVN has cleared; the
 * first such flow of each datapath.
 */
export function staleCtStages(raw: string): { datapath: string; stage: string }[] {
  const out: { datapath: string; stage: string }[] = [];
  const chain = (nodes: readonly TraceNode[], dp: string): void => {
    for (const n of nodes) {
      if (n.kind !== 'table') continue;
      // The flow's match (and a chk_lb_hairpin, which reads the conntrack tuple) come before its actions.
      if (
        POSITIVE_CT.test(n.match ?? '') ||
        n.children.some((c) => c.kind === 'leaf' && /chk_lb_hairpin/.test(c.text))
      ) {
        out.push({ datapath: dp, stage: n.stage ?? String(n.table) });
        return;
      }
      if (n.children.some((c) => (c.kind === 'transform' || c.kind === 'leaf') && /^ct_/.test(c.text))) return;
      chain(n.children, dp);
    }
  };
  const walk = (nodes: readonly TraceNode[], nested: boolean): void => {
    for (const n of nodes) {
      if (n.kind === 'leaf') continue;
      if (n.kind === 'pipeline' && n.pipeline === 'ingress' && nested) chain(n.children, n.datapath);
      walk(n.children, true);
    }
  };
  walk(parseTrace(raw).root, false);
  return out.filter((st, i) => out.findIndex((x) => x.datapath === st.datapath) === i);
}

/**
 * Rule ct-snat-to-vip-not-applied, past the outputs: ovn-trace goes on with
 * the client's source address after ct_snat_to_vip (`nat(src=VIP)` in its
 * comment). So does OVS until the packet recirculates: ct_snat_to_vip is a
 * ct(commit,nat) without recirculation, whose NAT xlate never writes back
 * into the flow (real packets, seed 777 case 1433; the simulator follows,
 * sim/pipeline/ct-ops.ts). From the next ct action that recirculates on, OVS
 * matches the SNATed source and ovn-trace still the client's: a flow past
 * that point that tests the source saw the wrong one. The cause must be
 * shown, not merely present: such a flow's `ip4.src` / `ip6.src`
 * comparison, evaluated by the match language over the topology's address
 * sets and port groups, holds for one of the client and the VIP and not the
 * other. A match or set it cannot resolve shows nothing, and neither does a
 * source test before the recirculation. The switch where the SNAT was.
 */
export function snatToVipStale(
  r: Pick<OvnTraceResult, 'stages'>,
  c: Pick<DiffCase, 'topology' | 'packet'>,
): string | undefined {
  const i = r.stages.findIndex((s) => s.actions.some((a) => a.startsWith('ct_snat_to_vip')));
  if (i < 0) return undefined;
  const vipText = r.stages[i]!.actions.map((a) => /nat\(src=([^)\s]+)\)/.exec(a)?.[1]).find((x) => x !== undefined);
  const vip = vipText === undefined ? undefined : tryParseIP(vipText);
  const client = ipSrc(c.packet);
  if (vip === undefined || client === undefined || (typeof client === 'number' ? 4 : 6) !== vip.family)
    return undefined;
  const field = vip.family === 4 ? 'ip4.src' : 'ip6.src';
  const from = (src: number | bigint) =>
    packetFromRecord({ fields: { 'eth.type': vip.family === 4 ? ETH_TYPE_IP : ETH_TYPE_IPV6, [field]: src } });
  const env = matchEnvOf(c.topology);
  const rest = r.stages.slice(i + 1);
  // The flow with the recirculating action matched before it: the flows after it see the SNAT on OVS.
  const k = rest.findIndex((st) => st.actions.some(recirculatingCt));
  const differs = (k < 0 ? [] : rest.slice(k + 1)).some((s) => {
    const parsed = tryParseMatch(s.match ?? '');
    if (!parsed.ok) return false;
    let shown = false;
    forEachComparison(parsed.expr, ({ field: f, op, value }) => {
      if (shown || f.name !== field) return;
      const cmp: MatchExpr = { kind: 'cmp', field: f, op, value };
      shown = evaluateMatch(cmp, from(client), env) !== evaluateMatch(cmp, from(vip.value), env);
    });
    return shown;
  });
  return differs ? r.stages[i]!.datapath : undefined;
}
