/**
 * NetworkPolicy → a port group of the pods it selects, address sets of the
 * peers, and ACLs at Kube-OVN's priorities (pkg/controller/network_policy.go,
 * pkg/ovs/ovn-nb-acl.go):
 * - port group `<np>.<ns>` (`-` → `.`), `external_ids:np=<ns>/<np>`;
 * - default drop at 2000 per direction the policy covers (`outport == @pg &&
 *   ip` to-lport, `inport == @pg && ip` from-lport with `apply-after-lb`);
 * - per rule `idx` and address family: the selector peers' addresses in
 *   `<np>.<ns>.<ingress|egress>.allow.<IPv4|IPv6>.<idx>` (with an empty
 *   `.except.` twin, as Kube-OVN keeps), one allow-related ACL at 2001 per
 *   port entry; ipBlock peers in their own ACL with each block's `except`
 *   inline and scoped to that block, so an excepted range is still allowed
 *   by another peer of the rule or by another policy;
 * - a policy covering a direction with no rules gets the `.all` sets and an
 *   ACL that matches nothing: all of that direction is dropped;
 * - every covered direction has at least one allow-related ACL, even when
 *   it matches nothing (selectors that select nobody, a named port no pod
 *   has): a switch whose only ACLs are drops is stateless in OVN, and the
 *   replies of the selected pods' own connections in the other direction
 *   would hit the drop. Kube-OVN leaves such ACLs out and relies on the
 *   node port groups' allow-related ACLs (node.ts), present while any policy
 *   exists, to make the switch stateful; kovn makes each policy sufficient
 *   on its own, which also holds where those node ACLs are absent;
 * - IPv6: the icmp6 allow-stateless pair Kube-OVN adds (neighbour discovery);
 * - `network_policy_enforcement: lax` (on the policy, as Kube-OVN reads it):
 *   the default drop matches `(tcp || udp || sctp)` instead of `ip`, and
 *   DHCPv4/v6 get allow-related ACLs at 2001 (UpdateDefaultBlockACLOps,
 *   UpdateDefaultBlockExceptionsACLOps);
 * - `enable_log: "true"`: the default drop logs at severity warning, the
 *   allow ACLs too when `log_acl_actions` names `allow`; with
 *   `acl_log_meter_rate` they name the meter `<pg>_<to|from>-lport_meter`.
 *
 * Where kovn differs from Kube-OVN, deliberately: a named port is resolved
 * per pod (the destination's own containerPort of that name), not through
 * one namespace-wide name → number map; so two pods that give the same name
 * to different numbers are both right. Selectors are resolved by the caller:
 * this function is pure and gets addresses and ports, not label queries.
 */
import { containsCIDR, tryParseCIDR } from '../../model/addr/index.ts';
import { parseMatch } from '../../model/match/index.ts';
import type { ACL, AddressSet, PortGroup } from '../../model/topology/index.ts';
import type { TranslateIssue, Translation } from './issues.ts';
import { dotted, PRIORITY } from './names.ts';

export type Family = 'IPv4' | 'IPv6';
export type L4 = 'TCP' | 'UDP' | 'SCTP';

/** A pod as a policy sees it: its port, addresses and named container ports. */
export interface PolicyPod {
  readonly port: string;
  readonly ips: readonly string[];
  /** containerPort name → protocol and number. */
  readonly namedPorts: ReadonlyMap<string, { readonly protocol: L4; readonly port: number }>;
}

export interface PolicyPortInput {
  readonly protocol: L4;
  /** A number, a name, or undefined for every port of the protocol. */
  readonly port?: number | string;
  readonly endPort?: number;
}

export type PolicyPeerInput =
  | { readonly kind: 'pods'; readonly pods: readonly PolicyPod[] }
  | { readonly kind: 'ipBlock'; readonly cidr: string; readonly except: readonly string[] };

export interface PolicyRuleInput {
  /** undefined: every source (ingress) or destination (egress). */
  readonly peers?: readonly PolicyPeerInput[];
  /** Empty: every port and protocol. */
  readonly ports: readonly PolicyPortInput[];
}

export interface NetworkPolicyInput {
  readonly name: string;
  readonly namespace: string;
  /** The policy types in effect (defaults applied by the caller). */
  readonly ingress?: readonly PolicyRuleInput[];
  readonly egress?: readonly PolicyRuleInput[];
  /** The pods `spec.podSelector` selects. */
  readonly selected: readonly PolicyPod[];
  /** Families of the selected pods' subnets (Kube-OVN writes ACLs only for those). */
  readonly families: readonly Family[];
  /** Every pod of the cluster that a named port on egress may name (the destinations). */
  readonly clusterPods?: readonly PolicyPod[];
  /**
   * `contributed`: the port group's ports and the pods' addresses in the
   * allow address sets are left out of the rows, for each pod to contribute
   * (policyMemberships), so a pod's change is its own members, not the
   * policy's whole sets. Default `inline`.
   */
  readonly podMembers?: 'inline' | 'contributed';
  /** The logging annotations (`enable_log`, `log_acl_actions`, `acl_log_meter_rate`); default none. */
  readonly log?: PolicyLog;
  /**
   * `network_policy_enforcement: lax`: the default drop blocks TCP, UDP and SCTP only (ICMP and
   * other IP protocols pass), with DHCP allowed (Kube-OVN's default block exceptions).
   */
  readonly lax?: boolean;
}

/** How a policy's ACLs log (Kube-OVN's UpdateDefaultBlockACLOps, UpdateIngressACLOps). */
export interface PolicyLog {
  /** `enable_log: "true"`: the default drop logs, at severity warning. */
  readonly enable: boolean;
  /** `log_acl_actions` (default `drop`): with `allow`, the allow ACLs log too. */
  readonly actions: readonly string[];
  /** `acl_log_meter_rate` (0: none): the logging ACLs name the meter `<pg>_<direction>_meter`. */
  readonly meterRate: number;
}

export interface NetworkPolicyRows {
  readonly portGroup: PortGroup;
  readonly addressSets: readonly AddressSet[];
  readonly acls: readonly ACL[];
}

/** `<np>.<ns>` with `-` → `.` (Kube-OVN's npPortGroupName). */
export function policyPortGroup(name: string, namespace: string): string {
  return dotted(`${name}.${namespace}`);
}

/** Kube-OVN truncates ACL names to NB's 63 characters this way. */
function aclName(name: string): string {
  return name.length > 63 ? `${name.slice(0, 60)}...` : name;
}

const familyOf = (cidrOrIp: string): Family => (cidrOrIp.includes(':') ? 'IPv6' : 'IPv4');
const ipField = (f: Family) => (f === 'IPv4' ? 'ip4' : 'ip6');

/**
 * @example
 * networkPolicyRows({ name: 'deny-all', namespace: 'default', ingress: [], selected: [web], families: ['IPv4'] })
 */
export function networkPolicyRows(np: NetworkPolicyInput): Translation<NetworkPolicyRows> {
  const object = `NetworkPolicy/${np.namespace}/${np.name}`;
  const issues: TranslateIssue[] = [];
  const pg = policyPortGroup(np.name, np.namespace);
  const key = `${np.namespace}/${np.name}`;
  const inline = np.podMembers !== 'contributed';
  const portGroup: PortGroup = {
    name: pg,
    ports: inline ? np.selected.map((p) => p.port) : [],
    externalIds: { np: key },
  };
  const addressSets: AddressSet[] = [];
  const acls: ACL[] = [];
  for (const direction of ['ingress', 'egress'] as const) {
    const rules = np[direction];
    if (rules === undefined || np.families.length === 0) continue;
    const ctx: DirectionCtx = { np, pg, key, direction, object, issues, addressSets, acls };
    acls.push(defaultDrop(ctx));
    if (np.lax) acls.push(...laxExceptions(ctx));
    const before = acls.length;
    for (const family of np.families) {
      if (rules.length === 0) noRules(ctx, family);
      rules.forEach((rule, idx) => ruleRows(ctx, family, rule, idx));
    }
    if (acls.length === before) for (const family of np.families) noRules(ctx, family);
  }
  if (np.families.includes('IPv6') && acls.length > 0) {
    acls.push(
      aclRow(pg, 'from-lport', PRIORITY.policyAllow, 'icmp6', 'allow-stateless', { 'apply-after-lb': 'true' }),
      aclRow(pg, 'to-lport', PRIORITY.policyAllow, 'icmp6', 'allow-stateless'),
    );
  }
  return { value: { portGroup, addressSets, acls }, issues };
}

interface DirectionCtx {
  readonly np: NetworkPolicyInput;
  readonly pg: string;
  readonly key: string;
  readonly direction: 'ingress' | 'egress';
  readonly object: string;
  readonly issues: TranslateIssue[];
  readonly addressSets: AddressSet[];
  readonly acls: ACL[];
}

function aclRow(
  pg: string,
  direction: ACL['direction'],
  priority: number,
  match: string,
  action: ACL['action'],
  options: Record<string, string> = {},
): ACL {
  return {
    attachTo: { kind: 'port-group', name: pg },
    direction,
    priority,
    match: parseMatch(match),
    action,
    log: false,
    options,
    externalIds: {},
  };
}

const aclDirection = (d: 'ingress' | 'egress') => (d === 'ingress' ? 'to-lport' : 'from-lport');
const portSide = (d: 'ingress' | 'egress') => (d === 'ingress' ? 'outport' : 'inport');
const afterLb = (d: 'ingress' | 'egress'): Record<string, string> =>
  d === 'egress' ? { 'apply-after-lb': 'true' } : {};

function defaultDrop(ctx: DirectionCtx): ACL {
  const d = ctx.direction;
  const what = ctx.np.lax ? '(tcp || udp || sctp)' : 'ip';
  const log = ctx.np.log;
  return {
    ...aclRow(
      ctx.pg,
      aclDirection(d),
      PRIORITY.policyDrop,
      `${portSide(d)} == @${ctx.pg} && ${what}`,
      'drop',
      afterLb(d),
    ),
    name: aclName(ctx.key),
    ...(log?.enable ? { log: true, severity: 'warning' as const, ...meter(ctx, log) } : {}),
  };
}

/** Kube-OVN's meter name for a policy's logging ACLs of one direction. */
function meter(ctx: DirectionCtx, log: PolicyLog): { meter?: string } {
  return log.meterRate > 0 ? { meter: `${ctx.pg}_${aclDirection(ctx.direction)}_meter` } : {};
}

/** The log columns of an allow ACL: logged when enabled and `allow` is among the actions. */
function allowLog(ctx: DirectionCtx): Partial<ACL> {
  const log = ctx.np.log;
  return log?.enable && log.actions.includes('allow') ? { log: true, ...meter(ctx, log) } : {};
}

/** Lax enforcement's exceptions: DHCPv6 and DHCPv4 (Kube-OVN's UpdateDefaultBlockExceptionsACLOps). */
function laxExceptions(ctx: DirectionCtx): ACL[] {
  const d = ctx.direction;
  const [v6src, v6dst, v4src, v4dst] = d === 'ingress' ? [547, 546, 67, 68] : [546, 547, 68, 67];
  const side = `${portSide(d)} == @${ctx.pg}`;
  return [`udp.src == ${v6src} && udp.dst == ${v6dst} && ip6`, `udp.src == ${v4src} && udp.dst == ${v4dst} && ip4`].map(
    (m) => ({
      ...aclRow(ctx.pg, aclDirection(d), PRIORITY.policyAllow, `${side} && ${m}`, 'allow-related', afterLb(d)),
      name: aclName(ctx.key),
    }),
  );
}

/** `<np>.<ns>.<direction>.<allow|except>.<IPv4|IPv6>.<idx>` (`-` → `.` in the first part), Kube-OVN's names. */
export function policyAddressSetName(
  name: string,
  namespace: string,
  direction: 'ingress' | 'egress',
  kind: 'allow' | 'except',
  family: Family,
  idx: number | 'all',
): string {
  return `${dotted(`${name}.${namespace}.${direction}.${kind}`)}.${family}.${idx}`;
}

function addressSet(ctx: DirectionCtx, kind: 'allow' | 'except', family: Family, idx: number | 'all', addrs: string[]) {
  const name = policyAddressSetName(ctx.np.name, ctx.np.namespace, ctx.direction, kind, family, idx);
  ctx.addressSets.push({
    name,
    addresses: [...new Set(addrs)],
    externalIds: { np: `${ctx.key}/${ctx.direction}` },
  });
  return name;
}

function noRules(ctx: DirectionCtx, family: Family): void {
  const allow = addressSet(ctx, 'allow', family, 'all', []);
  const except = addressSet(ctx, 'except', family, 'all', []);
  const ip = `${ipField(family)}.${ctx.direction === 'ingress' ? 'src' : 'dst'}`;
  const m = `${portSide(ctx.direction)} == @${ctx.pg} && ip && ${ip} == $${allow} && ${ip} != $${except}`;
  ctx.acls.push({
    ...aclRow(ctx.pg, aclDirection(ctx.direction), PRIORITY.policyAllow, m, 'allow-related', afterLb(ctx.direction)),
    name: aclName(`np/${ctx.pg}/${ctx.direction}/${family}/all`),
    ...allowLog(ctx),
  });
}

function ruleRows(ctx: DirectionCtx, family: Family, rule: PolicyRuleInput, idx: number): void {
  const ip = `${ipField(family)}.${ctx.direction === 'ingress' ? 'src' : 'dst'}`;
  const side = `${portSide(ctx.direction)} == @${ctx.pg} && ip`;
  const selectorAddrs: string[] = [];
  const blocks: string[] = [];
  const selectorPeers = rule.peers === undefined || rule.peers.some((p) => p.kind === 'pods');
  if (rule.peers === undefined) selectorAddrs.push(family === 'IPv4' ? '0.0.0.0/0' : '::/0');
  else {
    for (const [i, peer] of rule.peers.entries()) {
      if (peer.kind === 'pods') {
        if (ctx.np.podMembers === 'contributed') continue;
        for (const pod of peer.pods) for (const a of pod.ips) if (familyOf(a) === family) selectorAddrs.push(a);
      } else {
        const b = ipBlockMatch(ctx, ip, family, peer, `${ctx.direction}[${idx}].peers[${i}].ipBlock`);
        if (b !== undefined) blocks.push(b);
      }
    }
  }
  const allow = addressSet(ctx, 'allow', family, idx, selectorAddrs);
  const except = addressSet(ctx, 'except', family, idx, []);
  const base = `np/${ctx.pg}/${ctx.direction}/${family}/${idx}`;
  const emit = (peersMatch: string, name: string) => {
    for (const ports of portMatches(ctx, rule.ports, family)) {
      const m = `${side} && ${peersMatch}${ports === '' ? '' : ` && ${ports}`}`;
      ctx.acls.push({
        ...aclRow(
          ctx.pg,
          aclDirection(ctx.direction),
          PRIORITY.policyAllow,
          m,
          'allow-related',
          afterLb(ctx.direction),
        ),
        name: aclName(name),
        ...allowLog(ctx),
      });
    }
  };
  // Kube-OVN leaves this ACL out while the selectors select nobody; kovn keeps it, matching nothing (see the header).
  if (selectorPeers) emit(`${ip} == $${allow} && ${ip} != $${except}`, base);
  if (blocks.length > 0)
    // OVN wants || inside && parenthesized.
    emit(`(${blocks.map((b) => `(${b})`).join(' || ')})`, `${base}/ipBlock`);
}

/** One ipBlock as a match, its excepts scoped to it; undefined (and an issue) when the CIDR is bad. */
function ipBlockMatch(
  ctx: DirectionCtx,
  ip: string,
  family: Family,
  block: Extract<PolicyPeerInput, { kind: 'ipBlock' }>,
  field: string,
): string | undefined {
  const cidr = tryParseCIDR(block.cidr);
  if (cidr === undefined) {
    ctx.issues.push({
      code: 'invalid-cidr',
      object: ctx.object,
      field: `spec.${field}.cidr`,
      message: `${JSON.stringify(block.cidr)} is not a CIDR`,
    });
    return undefined;
  }
  if (familyOf(block.cidr) !== family) return undefined;
  const excepts: string[] = [];
  block.except.forEach((e, i) => {
    const ex = tryParseCIDR(e);
    if (ex === undefined || !containsCIDR(cidr, ex)) {
      ctx.issues.push({
        code: 'invalid-cidr',
        object: ctx.object,
        field: `spec.${field}.except[${i}]`,
        message: `${JSON.stringify(e)} is not a CIDR inside ${block.cidr}; ignored`,
      });
      return;
    }
    excepts.push(e);
  });
  const m = `${ip} == ${block.cidr}`;
  return excepts.length === 0 ? m : `${m} && ${ip} != {${excepts.join(', ')}}`;
}

/**
 * The port part of each ACL of a rule: '' for all ports; one entry per port
 * item, and for a named port one per distinct number it resolves to, each
 * limited to the pods that give the name that number.
 */
function portMatches(ctx: DirectionCtx, ports: readonly PolicyPortInput[], family: Family): string[] {
  if (ports.length === 0) return [''];
  const out: string[] = [];
  for (const p of ports) {
    const proto = p.protocol.toLowerCase();
    if (p.port === undefined) out.push(proto);
    else if (typeof p.port === 'number')
      out.push(
        p.endPort === undefined
          ? `${proto}.dst == ${p.port}`
          : `${proto}.dst >= ${p.port} && ${proto}.dst <= ${p.endPort}`,
      );
    else out.push(...namedPortMatches(ctx, p.port, p.protocol, family));
  }
  return out;
}

function namedPortMatches(ctx: DirectionCtx, name: string, protocol: L4, family: Family): string[] {
  const proto = protocol.toLowerCase();
  // Ingress: the destinations are the selected pods; egress: any pod of the cluster.
  const pods = ctx.direction === 'ingress' ? ctx.np.selected : (ctx.np.clusterPods ?? []);
  const byNumber = new Map<number, PolicyPod[]>();
  for (const pod of pods) {
    const np = pod.namedPorts.get(name);
    if (np === undefined || np.protocol !== protocol) continue;
    let list = byNumber.get(np.port);
    if (list === undefined) byNumber.set(np.port, (list = []));
    list.push(pod);
  }
  const out: string[] = [];
  for (const [port, list] of [...byNumber].sort((a, b) => a[0] - b[0])) {
    if (ctx.direction === 'ingress') {
      const names = list.map((p) => JSON.stringify(p.port)).join(', ');
      out.push(`${proto}.dst == ${port} && outport == {${names}}`);
    } else {
      const ips = list.flatMap((p) => p.ips.filter((a) => familyOf(a) === family));
      if (ips.length > 0) out.push(`${proto}.dst == ${port} && ${ipField(family)}.dst == {${ips.join(', ')}}`);
    }
  }
  return out;
}
