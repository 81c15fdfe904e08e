/**
 * A centralized subnet's gateway nodes, chosen as Kube-OVN chooses them
 * (pkg/controller/subnet.go reconcileOvnDefaultVpcRoute, getGatewayNodes,
 * reconcileDefaultCentralizedSubnetRouteInDefaultVpc,
 * reconcileEcmpCentralizedSubnetRouteInDefaultVpc; nodeReady in node.go):
 * - the candidates are `gatewayNode`'s names in order (`n1,n2` or
 *   `n1:ip,n2:ip`, the IP part unused), else the nodes `gatewayNodeSelectors`
 *   select (Kube-OVN collects them in a Go map, so its order is unspecified;
 *   kovn takes them by name);
 * - `enableEcmp`: every ready candidate is a next hop of the one 29000
 *   policy per family;
 * - otherwise primary-backup: the active gateway (`status.activateGateway`)
 *   stays while it is a ready candidate (a node coming back does not take
 *   it back); else the first ready candidate becomes active. With none
 *   ready Kube-OVN returns an error and leaves the policy as it was: kovn
 *   keeps the previous active node's hop (and, unlike Kube-OVN, its name in
 *   `status.activateGateway`, which is what the kept policy says).
 *
 * The policy's external_ids are Kube-OVN's buildPolicyRouteExternalIDs:
 * `subnet` and one `<node>: <join ip>` entry per next hop.
 */
import { createHash } from 'node:crypto';
import { containsIP, type IP, tryParseCIDR, tryParseIP } from '../../model/addr/index.ts';
import type { NatOutgoingPolicyRule } from '../../kube/objects/objects.ts';
export interface GatewayCandidate {
  readonly name: string;
  readonly ready: boolean;
  /** The node's join addresses (its `node-<name>` port), v4 and/or v6. */
  readonly joinIps: readonly string[];
}

export interface GatewayChoice {
  /** Per next hop: the node and its join address, in the policy's order. */
  readonly hops: readonly { readonly node: string; readonly ip: string }[];
  /** Primary-backup: the active node (`status.activateGateway`; '' with none); ECMP: ''. */
  readonly active: string;
  /** No candidate is ready (Kube-OVN's `NoActiveGatewayFound`). */
  readonly noneReady: boolean;
}

/**
 * @example chooseGateways([{ name: 'n1', ready: false, joinIps: ['100.64.0.2'] }, { name: 'n2', ready: true, joinIps: ['100.64.0.3'] }], false, '')
 *   // { hops: [{ node: 'n2', ip: '100.64.0.3' }], active: 'n2', noneReady: false }
 */
export function chooseGateways(
  candidates: readonly GatewayCandidate[],
  enableEcmp: boolean,
  previousActive: string,
): GatewayChoice {
  const usable = candidates.filter((c) => c.joinIps.length > 0);
  const ready = usable.filter((c) => c.ready);
  const hopsOf = (list: readonly GatewayCandidate[]) =>
    list.flatMap((c) => c.joinIps.map((ip) => ({ node: c.name, ip })));
  if (enableEcmp) return { hops: hopsOf(ready), active: '', noneReady: ready.length === 0 };
  const kept = ready.find((c) => c.name === previousActive);
  const active = kept ?? ready[0];
  if (active !== undefined) return { hops: hopsOf([active]), active: active.name, noneReady: false };
  // None ready: Kube-OVN's reconcile fails before touching the policy, which keeps its old next hop. It
  // clears status.activateGateway; kovn keeps the name, as that is what the kept policy still says.
  const old = usable.find((c) => c.name === previousActive);
  return { hops: old === undefined ? [] : hopsOf([old]), active: old?.name ?? '', noneReady: true };
}

/**
 * A `natOutgoingPolicyRules` entry's ID in `status.natOutgoingPolicyRules`:
 * Kube-OVN's updateNatOutgoingPolicyRulesStatus (pkg/controller/subnet_status.go),
 * the first 12 hex digits of sha256(subnet name + index + the rule's JSON),
 * which the node agent names its ipsets after (`natpr-<id>-src`).
 *
 * @example natRuleId('edge', 0, { srcIPs: '', dstIPs: '192.0.2.0/24', action: 'forward' }).length // 12
 */
export function natRuleId(subnet: string, index: number, rule: NatOutgoingPolicyRule): string {
  // Go's encoding/json over NatOutgoingPolicyRule: match (srcIPs, dstIPs omitted when empty), then action.
  const match: Record<string, string> = {};
  if (rule.srcIPs !== '') match.srcIPs = rule.srcIPs;
  if (rule.dstIPs !== '') match.dstIPs = rule.dstIPs;
  const json = JSON.stringify({ match, action: rule.action });
  return createHash('sha256').update(`${subnet}${index}${json}`).digest('hex').slice(0, 12);
}

/** The subnet fields the node's masquerade reads. */
export interface NatOutgoingInput {
  readonly natOutgoing: boolean;
  readonly natOutgoingPolicyRules: readonly NatOutgoingPolicyRule[];
}

export interface MasqueradeDecision {
  readonly snat: boolean;
  /** What decided it, for a probe's reason: `natOutgoingPolicyRules[1] (nat)`, `natOutgoing`, ... */
  readonly by: string;
}

const inList = (list: string, ip: IP): boolean =>
  list.split(',').some((item) => {
    const c = tryParseCIDR(item.trim(), { allowBare: true });
    return c !== undefined && containsIP(c, ip);
  });

/**
 * Whether the gateway node masquerades a pod's packet to an outside address,
 * as the iptables nat rules of Kube-OVN's node agent decide it
 * (pkg/daemon/gateway_linux.go, OVN-POSTROUTING): only a natOutgoing subnet
 * of the default VPC is masqueraded; its policy rules of the packet's family
 * MARK it (non-terminating), and any `nat` mark wins over a `forward` one
 * whatever their order (the two marks' bits OR together and the nat mark is
 * tested first); with no rule matching, natOutgoing masquerades.
 *
 * @example nodeMasquerades({ natOutgoing: true, natOutgoingPolicyRules: [{ srcIPs: '', dstIPs: '192.0.2.0/24', action: 'forward' }] }, '10.88.0.2', '192.0.2.9')
 *   // { snat: false, by: 'natOutgoingPolicyRules[0] (forward)' }
 */
export function nodeMasquerades(s: NatOutgoingInput, src: string, dst: string): MasqueradeDecision {
  if (!s.natOutgoing) return { snat: false, by: 'natOutgoing false' };
  const a = tryParseIP(src);
  const b = tryParseIP(dst);
  if (a === undefined || b === undefined || a.family !== b.family) return { snat: true, by: 'natOutgoing' };
  const matching = s.natOutgoingPolicyRules
    .map((rule, i) => ({ rule, i }))
    .filter(({ rule }) => {
      if (rule.srcIPs.trim() === '' && rule.dstIPs.trim() === '') return false; // Kube-OVN writes no rule for it
      return (
        (rule.srcIPs.trim() === '' || inList(rule.srcIPs, a)) && (rule.dstIPs.trim() === '' || inList(rule.dstIPs, b))
      );
    });
  const nat = matching.find((m) => m.rule.action === 'nat');
  if (nat !== undefined) return { snat: true, by: `natOutgoingPolicyRules[${nat.i}] (nat)` };
  const fwd = matching.find((m) => m.rule.action === 'forward');
  if (fwd !== undefined) return { snat: false, by: `natOutgoingPolicyRules[${fwd.i}] (forward)` };
  return { snat: true, by: 'natOutgoing' };
}

/** The subnet fields the gateway node's policy routing reads (pkg/daemon/controller_linux.go getPolicyRouting). */
export interface EgressGatewayInput {
  readonly natOutgoing: boolean;
  readonly externalEgressGateway: string;
  readonly policyRoutingPriority: number;
  readonly policyRoutingTableID: number;
}

/**
 * Where the gateway node sends a pod's packet to an outside address of
 * `family`: the subnet's external egress gateway of that family by the ip
 * rule Kube-OVN's node agent installs (`from <pod or cidr> lookup <table>`
 * at the given priority, the table's default route via the gateway), or
 * undefined (the node's own routes). Kube-OVN's validator refuses
 * natOutgoing with it; the node agent also applies it only without.
 *
 * @example egressGatewayRoute({ natOutgoing: false, externalEgressGateway: '192.168.0.254', policyRoutingPriority: 1500, policyRoutingTableID: 1000 }, 4)
 *   // 'the external egress gateway 192.168.0.254 (ip rule priority 1500, table 1000)'
 */
export function egressGatewayRoute(s: EgressGatewayInput, family: 4 | 6): string | undefined {
  if (s.natOutgoing || s.externalEgressGateway === '') return undefined;
  const hop = s.externalEgressGateway
    .split(',')
    .map((h) => h.trim())
    .find((h) => tryParseIP(h)?.family === family);
  if (hop === undefined) return undefined;
  return `the external egress gateway ${hop} (ip rule priority ${s.policyRoutingPriority}, table ${s.policyRoutingTableID})`;
}
