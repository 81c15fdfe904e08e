/**
 * AdminNetworkPolicy / BaselineAdminNetworkPolicy → a port group of the
 * subject's pods, two address sets per rule and ACLs, with Kube-OVN's names
 * and priorities (pkg/controller/admin_network_policy.go handleAddAnp,
 * baseline_admin_network_policy.go handleAddBanp, pkg/ovs/ovn-nb-acl.go
 * UpdateAnpRuleACLOps and newAnpACLMatch, pkg/util/const.go):
 * - port group `<name>` (`-` → `.`, `anp` prefixed when the name does not
 *   start with a letter), `external_ids:anp=<name>` (`banp=` for a BANP);
 * - per rule `idx` of a direction: address sets
 *   `<pg>.<ingress|egress>.<idx>.<rule name>.<IPv4|IPv6>` (`-` → `.`) of
 *   its peers' addresses (pods, `networks` CIDRs, nodes' InternalIPs),
 *   `external_ids:anp=<name>/<direction>`;
 * - per rule and family with addresses, one ACL per port entry (or one for
 *   all ports): `outport == @pg && ip && ip4.src == $as [&& tcp.dst == 80]`
 *   to-lport (ingress), `inport == @pg && ip && ip4.dst == $as ...`
 *   from-lport (egress), both with `apply-after-lb`, named
 *   `anp/<name>/<direction>/<IPv4|IPv6>/<idx>` (`banp/...`), at priority
 *   30000 - 100 × spec.priority - idx (ANP) or 1800 - idx (BANP); Allow is
 *   allow-related, Deny drop.
 *
 * The tiers: Kube-OVN puts ANP, NetworkPolicy and BANP ACLs in OVN ACL tiers
 * 1, 2, 3 and Pass in an ACL action `pass`. OVN 23.03 (NB schema 7.0.0) has
 * neither the `tier` column nor the `pass` action. The priorities alone
 * already order the three in one tier: ANP 20001..30000 above NetworkPolicy
 * 2000/2001 above BANP 1701..1800. What is left is Pass ("skip the remaining
 * ANPs"): kovn writes no row for a Pass rule and instead excludes its match
 * from every ANP ACL that comes after it (a later rule of the same ANP, any
 * rule of an ANP with a larger priority), in the same direction, as
 * `&& !(<pass match>)`. Traffic a Pass matches therefore meets no ANP ACL
 * and falls to the NetworkPolicy ACLs, then the BANP's, as in tiers.
 *
 * Where kovn differs from Kube-OVN, deliberately: Kube-OVN does not support
 * `namedPort` (it writes no ACL for it); kovn resolves it per destination pod
 * as for NetworkPolicies (the pod's own container port of that name, with
 * its protocol). The function is pure: selectors are resolved by the caller.
 */
import { parseMatch } from '../../model/match/index.ts';
import type { ACL, AclSeverity, AddressSet, PortGroup } from '../../model/topology/index.ts';
import type { AnpAction, AnpPort } from '../../kube/objects/objects.ts';
import { dotted } from './names.ts';
import type { Family, PolicyPod } from './network-policy.ts';

/** ACL priorities of the admin tiers (pkg/util/const.go). */
export const ANP_PRIORITY = { anpMax: 30000, banpMax: 1800 } as const;

export interface AnpRuleInput {
  readonly name: string;
  readonly action: AnpAction;
  /** The peers' addresses and CIDRs, resolved by the caller. */
  readonly addresses: readonly string[];
  /** Absent: every port and protocol. */
  readonly ports?: readonly AnpPort[];
}

/** A Pass rule's match, to be excluded from ACLs of lower precedence. */
export interface PassMatch {
  readonly direction: 'ingress' | 'egress';
  readonly family: Family;
  readonly match: string;
}

export interface AnpInput {
  readonly baseline: boolean;
  readonly name: string;
  /** spec.priority (0 for a BANP). */
  readonly priority: number;
  /** The subject's pods. */
  readonly selected: readonly PolicyPod[];
  readonly ingress: readonly AnpRuleInput[];
  readonly egress: readonly AnpRuleInput[];
  /** Every pod of the cluster (the destinations an egress namedPort may name). */
  readonly clusterPods: readonly PolicyPod[];
  /** OVN actions (`allow-related`, `drop`) whose ACLs log (the `log_acl_actions` annotation). */
  readonly logActions: readonly string[];
  /** Pass matches of ANPs before this one (a smaller spec.priority), excluded from all of its ACLs. */
  readonly passesBefore: readonly PassMatch[];
}

export interface AnpRows {
  readonly portGroup: PortGroup;
  readonly addressSets: readonly AddressSet[];
  readonly acls: readonly ACL[];
  /** This policy's own Pass matches (for the ANPs after it). */
  readonly passes: readonly PassMatch[];
}

/** Kube-OVN's getAnpName: a name that does not start with a letter gets `anp` in front. */
export function anpName(name: string): string {
  return /^\p{L}/u.test(name) ? name : `anp${name}`;
}

/** The port group of an ANP or BANP (`-` → `.`). */
export const anpPortGroup = (name: string): string => dotted(anpName(name));

/** Kube-OVN's getAnpAddressSetName. */
export function anpAddressSetName(pg: string, dir: 'ingress' | 'egress', idx: number, rule: string, f: Family): string {
  return dotted(`${pg}.${dir}.${idx}.${rule}.${f}`);
}

const ipField = (f: Family) => (f === 'IPv4' ? 'ip4' : 'ip6');
const familyOf = (a: string): Family => (a.includes(':') ? 'IPv6' : 'IPv4');
const OVN_ACTION: Readonly<Record<AnpAction, ACL['action'] | 'pass'>> = {
  Allow: 'allow-related',
  Deny: 'drop',
  Pass: 'pass',
};

/**
 * @example
 * anpRows({ baseline: false, name: 'deny-db', priority: 5, selected: [db], ingress: [rule], egress: [],
 *   clusterPods: [], logActions: [], passesBefore: [] }).acls[0].priority // 29500
 */
export function anpRows(a: AnpInput): AnpRows {
  const name = anpName(a.name);
  const pg = anpPortGroup(a.name);
  const key = a.baseline ? 'banp' : 'anp';
  const portGroup: PortGroup = { name: pg, ports: a.selected.map((p) => p.port), externalIds: { [key]: name } };
  const addressSets: AddressSet[] = [];
  const acls: ACL[] = [];
  const passes: PassMatch[] = [];
  for (const dir of ['ingress', 'egress'] as const) {
    a[dir].forEach((rule, idx) => {
      const priority = a.baseline ? ANP_PRIORITY.banpMax - idx : ANP_PRIORITY.anpMax - a.priority * 100 - idx;
      for (const family of ['IPv4', 'IPv6'] as const) {
        const as = anpAddressSetName(pg, dir, idx, rule.name, family);
        const addrs = [...new Set(rule.addresses.filter((x) => familyOf(x) === family))];
        addressSets.push({ name: as, addresses: addrs, externalIds: { [key]: `${name}/${dir}` } });
        if (addrs.length === 0) continue;
        if (rule.action === 'Pass') {
          // OVN refuses a port (a nominal field) and `ip` (a nominal predicate) under "!": the subject is
          // named by its port group's address set, which northd keeps (`<pg>_ip4`), and `ip4.dst` implies ip4.
          const subject = `${ipField(family)}.${dir === 'ingress' ? 'dst' : 'src'} == $${pg}_${ipField(family)}`;
          for (const match of ruleMatches(a, subject, as, dir, family, rule.ports))
            passes.push({ direction: dir, family, match });
          continue;
        }
        const port = `${dir === 'ingress' ? 'outport' : 'inport'} == @${pg} && ip`;
        const matches = ruleMatches(a, port, as, dir, family, rule.ports);
        const exclude = [...a.passesBefore, ...passes].filter((p) => p.direction === dir && p.family === family);
        const action = OVN_ACTION[rule.action] as ACL['action'];
        for (const m of matches) {
          const full = exclude.length === 0 ? m : `${m} && ${exclude.map((p) => `!(${p.match})`).join(' && ')}`;
          acls.push(aclRow(pg, dir, priority, full, action, `${key}/${name}/${dir}/${family}/${idx}`, a.logActions));
        }
      }
    });
  }
  return { portGroup, addressSets, acls, passes };
}

function aclRow(
  pg: string,
  dir: 'ingress' | 'egress',
  priority: number,
  match: string,
  action: ACL['action'],
  name: string,
  logActions: readonly string[],
): ACL {
  const log = logActions.includes(action);
  const severity: AclSeverity | undefined = log && action === 'drop' ? 'warning' : undefined;
  return {
    attachTo: { kind: 'port-group', name: pg },
    direction: dir === 'ingress' ? 'to-lport' : 'from-lport',
    priority,
    match: parseMatch(match),
    action,
    // Kube-OVN's setACLName: NB keeps at most 63 characters.
    name: name.length > 63 ? `${name.slice(0, 60)}...` : name,
    log,
    ...(severity ? { severity } : {}),
    options: { 'apply-after-lb': 'true' },
    externalIds: {},
  };
}

/** newAnpACLMatch: one match per port entry (none resolved: none), or one for every port. */
function ruleMatches(
  a: AnpInput,
  subject: string,
  as: string,
  dir: 'ingress' | 'egress',
  family: Family,
  ports: readonly AnpPort[] | undefined,
): string[] {
  const ip = `${ipField(family)}.${dir === 'ingress' ? 'src' : 'dst'}`;
  const base = `${subject} && ${ip} == $${as}`;
  if (ports === undefined) return [base];
  const out: string[] = [];
  for (const p of ports) {
    if (p.kind === 'number') out.push(`${base} && ${p.protocol.toLowerCase()}.dst == ${p.port}`);
    else if (p.kind === 'range') {
      const f = `${p.protocol.toLowerCase()}.dst`;
      out.push(`${base} && ${p.start} <= ${f} <= ${p.end}`);
    } else out.push(...namedPortMatches(a, dir, family, p.name).map((m) => `${base} && ${m}`));
  }
  return out;
}

/**
 * A named port: per number it resolves to, the addresses of the
 * destinations giving it that number (ingress: the subject's pods; egress:
 * any pod). Addresses, not ports: a Pass rule's match is negated, and OVN
 * refuses a port under "!".
 */
function namedPortMatches(a: AnpInput, dir: 'ingress' | 'egress', family: Family, name: string): string[] {
  const pods = dir === 'ingress' ? a.selected : a.clusterPods;
  const byTarget = new Map<string, PolicyPod[]>();
  for (const pod of pods) {
    const np = pod.namedPorts.get(name);
    if (np === undefined) continue;
    const k = `${np.protocol.toLowerCase()}.dst == ${np.port}`;
    let list = byTarget.get(k);
    if (list === undefined) byTarget.set(k, (list = []));
    list.push(pod);
  }
  const out: string[] = [];
  for (const [k, list] of [...byTarget].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
    const ips = list.flatMap((p) => p.ips.filter((x) => familyOf(x) === family));
    if (ips.length > 0) out.push(`${k} && ${ipField(family)}.dst == {${ips.join(', ')}}`);
  }
  return out;
}
