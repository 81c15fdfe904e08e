/**
 * NetworkPolicies (and the node ACLs that come with them) for the
 * `kovn bench sim` topology, translated as Kube-OVN's controller translates
 * them (pkg/controller/network_policy.go, pkg/ovs/ovn-nb-acl.go):
 *
 * - per policy a port group `<np>.<ns>` (`-` → `.`) holding the selected pods;
 * - per rule i address sets `<pg>.<ingress|egress>.<allow|except>.IPv4.<i>`;
 * - ingress: to-lport 2000 `outport == @pg && ip4` drop (once), and per rule
 *   and port to-lport 2001 `outport == @pg && ip && ip4.src == $allow &&
 *   ip4.src != $except [&& tcp.dst == N]` allow-related;
 * - egress: the same from-lport on `inport`/`ip4.dst`, with
 *   `apply-after-lb=true`;
 * - the subnet gateway allowed at 2001 both ways (allow-stateless);
 * - per node a port group `node.<node>` of the pods on that node, with
 *   to-lport 3000 `ip4.src == <node ip> && ip4.dst == $<pg>_ip4` and the
 *   mirror from-lport rule, allow-related (the node's join address stands in
 *   for its internal IP, as Kube-OVN does when a node has none).
 *
 * The ACL count is exact: node ACLs first (when they leave room), then
 * policies until the budget is spent, the last one cut short if need be.
 */
import { formatIPv4 } from '../model/addr/index.ts';
import { parseMatch } from '../model/match/index.ts';
import type { ACL, AclAction, AclDirection, Tables, TableName } from '../model/topology/index.ts';
import type { App, ClusterNode, ClusterPod, Rng } from './sim-topology.ts';
import { appendAll } from '../model/append.ts';

type Rows = { [T in TableName]: Tables[T][] };
const VENDOR = { vendor: 'kovn' } as const;

export interface PolicyPort {
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
}

export interface PolicyRule {
  /** Peer pods (pod/namespace selectors), or an ipBlock. */
  readonly peers: readonly ClusterPod[] | { readonly cidr: string; readonly except: readonly string[] };
  /** Empty: every port. */
  readonly ports: readonly PolicyPort[];
}

export interface ClusterPolicy {
  readonly name: string;
  readonly namespace: string;
  readonly portGroup: string;
  readonly selected: readonly ClusterPod[];
  /** Rules whose allow ACLs made it into the ACL budget. */
  readonly ingress: readonly PolicyRule[];
  readonly egress: readonly PolicyRule[];
  readonly acls: number;
}

type AppMap = ReadonlyMap<string, ReadonlyMap<string, readonly ClusterPod[]>>;

const dotted = (s: string): string => s.replace(/-/g, '.');

function acl(
  pg: string,
  direction: AclDirection,
  priority: number,
  match: string,
  action: AclAction,
  afterLb: boolean,
): ACL {
  return {
    attachTo: { kind: 'port-group', name: pg },
    direction,
    priority,
    match: parseMatch(match),
    action,
    log: false,
    options: afterLb ? { 'apply-after-lb': 'true' } : {},
    externalIds: { ...VENDOR, parent: pg },
  };
}

/**
 * Adds node and policy rows for exactly `acls` ACLs; returns the policies.
 *
 * @example policyRows(rows, rng, { acls: 1000, nodes, pods, apps }) // ~150 policies, rows.acl.length grows by 1000
 */
export function policyRows(
  rows: Rows,
  rng: Rng,
  o: { acls: number; nodes: readonly ClusterNode[]; pods: readonly ClusterPod[]; apps: AppMap },
): ClusterPolicy[] {
  let budget = o.acls;
  // Node ACLs exist once any policy does; leave at least three quarters of the budget to policies.
  if (o.acls > 0 && 2 * o.nodes.length <= o.acls / 4) budget -= nodeRows(rows, o.nodes, o.pods);
  const namespaces = [...o.apps.keys()];
  const policies: ClusterPolicy[] = [];
  for (let j = 0; budget > 0; j++) {
    const namespace = namespaces[j % namespaces.length]!;
    const apps = [...o.apps.get(namespace)!.values()];
    const selected = apps[Math.floor(j / namespaces.length) % apps.length]!;
    const p = policyOf(rows, rng, { j, namespace, selected, apps, all: o.apps, budget });
    budget -= p.acls;
    policies.push(p);
  }
  return policies;
}

function nodeRows(rows: Rows, nodes: readonly ClusterNode[], pods: readonly ClusterPod[]): number {
  for (const node of nodes) {
    const pg = dotted(node.port);
    const ip = formatIPv4(node.ip);
    rows.portGroup.push({
      name: pg,
      ports: pods.filter((p) => p.node === node).map((p) => p.port),
      externalIds: { ...VENDOR, node: node.name },
    });
    rows.acl.push(acl(pg, 'to-lport', 3000, `ip4.src == ${ip} && ip4.dst == $${pg}_ip4`, 'allow-related', false));
    rows.acl.push(acl(pg, 'from-lport', 3000, `ip4.dst == ${ip} && ip4.src == $${pg}_ip4`, 'allow-related', true));
  }
  return 2 * nodes.length;
}

interface PolicyInput {
  readonly j: number;
  readonly namespace: string;
  readonly selected: readonly ClusterPod[];
  readonly apps: readonly (readonly ClusterPod[])[];
  readonly all: AppMap;
  readonly budget: number;
}

/** One rule's peers: another app of the namespace, a whole namespace, or an ipBlock with an except. */
function peersOf(rng: Rng, p: PolicyInput, target: App): PolicyRule['peers'] {
  const roll = rng.int(10);
  if (roll < 5) {
    const others = p.apps.filter((a) => a[0]?.app.name !== target.name);
    return others.length > 0 ? rng.pick(others) : p.selected;
  }
  if (roll < 8) {
    const ns = rng.pick([...p.all.values()]);
    return [...ns.values()].flat();
  }
  const subnet = rng.pick(p.apps.flat()).subnet.cidr;
  const base = subnet.split('.').slice(0, 2).join('.');
  return { cidr: subnet, except: [`${base}.0.0/24`] };
}

function portsOf(rng: Rng, target: App): PolicyPort[] {
  const roll = rng.int(10);
  if (roll === 0) return [];
  if (roll === 1)
    return [
      { protocol: target.protocol, port: target.port },
      { protocol: 'tcp', port: 9090 },
    ];
  return [{ protocol: target.protocol, port: target.port }];
}

function ruleAcls(pg: string, dir: 'ingress' | 'egress', idx: number, rule: PolicyRule, rows: Rows): ACL[] {
  const allow = `${pg}.${dir}.allow.IPv4.${idx}`;
  const except = `${pg}.${dir}.except.IPv4.${idx}`;
  const peers = rule.peers;
  const allowAddrs = 'cidr' in peers ? [peers.cidr] : peers.map((x) => formatIPv4(x.ip));
  const exceptAddrs = 'cidr' in peers ? [...peers.except] : [];
  rows.addressSet.push({ name: allow, addresses: allowAddrs, externalIds: { ...VENDOR, np: pg, direction: dir } });
  rows.addressSet.push({ name: except, addresses: exceptAddrs, externalIds: { ...VENDOR, np: pg, direction: dir } });
  const [portKey, key, direction] =
    dir === 'ingress' ? (['outport', 'ip4.src', 'to-lport'] as const) : (['inport', 'ip4.dst', 'from-lport'] as const);
  const base = `${portKey} == @${pg} && ip && ${key} == $${allow} && ${key} != $${except}`;
  const matches =
    rule.ports.length === 0 ? [base] : rule.ports.map((pp) => `${base} && ${pp.protocol}.dst == ${pp.port}`);
  return matches.map((m) => acl(pg, direction, 2001, m, 'allow-related', dir === 'egress'));
}

function policyOf(rows: Rows, rng: Rng, p: PolicyInput): ClusterPolicy {
  const first = p.selected[0]!;
  const name = `${first.app.name}-policy-${p.j}`;
  const pg = dotted(`${name}.${p.namespace}`);
  const ingress: PolicyRule[] = Array.from({ length: rng.chance(0.3) ? 2 : 1 }, () => ({
    peers: peersOf(rng, p, first.app),
    ports: portsOf(rng, first.app),
  }));
  const egress: PolicyRule[] = [];
  if (rng.chance(0.3)) {
    const peers = peersOf(rng, p, first.app);
    const app = 'cidr' in peers ? first.app : (peers[0]?.app ?? first.app);
    egress.push({ peers, ports: [{ protocol: app.protocol, port: app.port }] });
  }
  // In Kube-OVN's order; a policy at the end of the budget keeps only its first ACLs.
  const list: { acl: ACL; dir: 'ingress' | 'egress'; rule: number }[] = [];
  list.push({ acl: acl(pg, 'to-lport', 2000, `outport == @${pg} && ip4`, 'drop', false), dir: 'ingress', rule: -1 });
  ingress.forEach((r, i) =>
    ruleAcls(pg, 'ingress', i, r, rows).forEach((a) => list.push({ acl: a, dir: 'ingress', rule: i })),
  );
  if (egress.length > 0) {
    list.push({ acl: acl(pg, 'from-lport', 2000, `inport == @${pg} && ip4`, 'drop', true), dir: 'egress', rule: -1 });
    egress.forEach((r, i) =>
      ruleAcls(pg, 'egress', i, r, rows).forEach((a) => list.push({ acl: a, dir: 'egress', rule: i })),
    );
  }
  const gw = formatIPv4(first.subnet.gateway);
  list.push({ acl: acl(pg, 'to-lport', 2001, `ip4.src == ${gw}`, 'allow-stateless', false), dir: 'ingress', rule: -1 });
  list.push({ acl: acl(pg, 'from-lport', 2001, `ip4.dst == ${gw}`, 'allow-stateless', true), dir: 'egress', rule: -1 });
  const kept = list.slice(0, p.budget);
  rows.portGroup.push({
    name: pg,
    ports: p.selected.map((x) => x.port),
    externalIds: { ...VENDOR, np: `${p.namespace}/${name}` },
  });
  appendAll(
    rows.acl,
    kept.map((k) => k.acl),
  );
  const keptRules = (dir: 'ingress' | 'egress', rules: PolicyRule[]) =>
    rules.filter((_, i) => kept.some((k) => k.dir === dir && k.rule === i));
  return {
    name,
    namespace: p.namespace,
    portGroup: pg,
    selected: p.selected,
    ingress: keptRules('ingress', ingress),
    egress: keptRules('egress', egress),
    acls: kept.length,
  };
}
