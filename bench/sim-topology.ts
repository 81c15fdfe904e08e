/**
 * The `kovn bench sim` topology: a Kube-OVN cluster as Kube-OVN's
 * controller would write it into the Northbound DB, generated from a seed.
 *
 * - Router `ovn-cluster`; switch `join` 100.64.0.0/16 with one port
 *   `node-<node>` per node; subnet switches (`ovn-default` 10.16.0.0/16 and
 *   `subnet-1..` 10.17.0.0/16, ...) connected to it by `ovn-cluster-<ls>` /
 *   `<ls>-ovn-cluster`; router policies 31000 `ip4.dst == <cidr>` allow.
 * - Namespaces `ns-<i>` bound to subnets round-robin; Deployment-style pods
 *   `<app>-<rs hash>-<suffix>`, port `<pod>.<ns>`, addresses "MAC IP" from
 *   the IPAM (lowest free address, seeded MACs), spread over nodes
 *   round-robin.
 * - Services: one load balancer row per Service (Kube-OVN pools its VIPs in
 *   a few `cluster-<proto>-loadbalancer` rows; the benchmark's target counts
 *   500 rows), VIPs in 10.96.0.0/12 with 1-3 pod backends, attached to every
 *   pod switch.
 * - NetworkPolicies and node ACLs: see sim-policies.ts.
 *
 * Deterministic: the same parameters give the same topology, row for row.
 */
import { formatIPv4, formatMAC, parseIPv4 } from '../model/addr/index.ts';
import { IPAM, seededRandomBytes } from '../model/ipam/index.ts';
import { parseMatch } from '../model/match/index.ts';
import { buildTopology, type Tables, type TableName, type Topology } from '../model/topology/index.ts';
import { type ClusterPolicy, policyRows } from './sim-policies.ts';

export const CLUSTER_ROUTER = 'ovn-cluster';
export const JOIN_SWITCH = 'join';
const VENDOR = { vendor: 'kovn' } as const;
const PODS_PER_NAMESPACE = 50;
const PODS_PER_APP = 5;
const PODS_PER_NODE = 100;
const FIRST_VIP = parseIPv4('10.96.0.10');

export interface SimTopologyParams {
  /** Pod ports (default 5,000). */
  readonly ports?: number;
  /** ACL rows (default 1,000): node ACLs plus NetworkPolicy ACLs. */
  readonly acls?: number;
  /** Load balancer rows, one per Service (default 500). */
  readonly lbs?: number;
  /** Pod subnets besides `join` (default 10). */
  readonly subnets?: number;
  readonly seed?: number;
}

export interface App {
  readonly name: string;
  readonly protocol: 'tcp' | 'udp';
  /** The container port its pods listen on. */
  readonly port: number;
}

export interface ClusterSubnet {
  readonly name: string;
  readonly cidr: string;
  /** Gateway address (the router port's), IPv4 as a number. */
  readonly gateway: number;
  readonly routerPort: string;
  readonly routerMac: number;
}

export interface ClusterNode {
  readonly name: string;
  /** Its `join` port `node-<name>`. */
  readonly port: string;
  readonly ip: number;
  readonly mac: number;
}

export interface ClusterPod {
  readonly name: string;
  readonly namespace: string;
  /** Logical switch port `<pod>.<namespace>`. */
  readonly port: string;
  readonly subnet: ClusterSubnet;
  readonly node: ClusterNode;
  readonly app: App;
  readonly ip: number;
  readonly mac: number;
}

export interface ClusterService {
  readonly lb: string;
  readonly namespace: string;
  readonly name: string;
  readonly vip: number;
  readonly port: number;
  readonly protocol: 'tcp' | 'udp';
  readonly backends: readonly ClusterPod[];
}

export interface SimCluster {
  readonly topology: Topology;
  readonly join: ClusterSubnet;
  readonly subnets: readonly ClusterSubnet[];
  readonly nodes: readonly ClusterNode[];
  readonly pods: readonly ClusterPod[];
  /** Pods by namespace, then by app name. */
  readonly apps: ReadonlyMap<string, ReadonlyMap<string, readonly ClusterPod[]>>;
  readonly services: readonly ClusterService[];
  readonly policies: readonly ClusterPolicy[];
  readonly counts: {
    readonly ports: number;
    readonly acls: number;
    readonly lbs: number;
    readonly portGroups: number;
    readonly addressSets: number;
  };
}

/** A small seeded generator (splitmix32): the benchmark's only randomness. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed | 0;
  }
  /** Uniform in [0, 2^32). */
  next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  }
  /** Uniform in [0, n). */
  int(n: number): number {
    return Math.floor((this.next() / 4294967296) * n);
  }
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new RangeError('Rng.pick: empty list');
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() / 4294967296 < p;
  }
}

type Rows = { [T in TableName]: Tables[T][] };
const emptyRows = (): Rows => ({
  dhcpOptions: [],
  addressSet: [],
  loadBalancer: [],
  switch: [],
  router: [],
  routerPort: [],
  switchPort: [],
  portGroup: [],
  acl: [],
  qos: [],
  nat: [],
  staticRoute: [],
  routerPolicy: [],
});

const APP_KINDS: readonly App[] = [
  { name: 'web', protocol: 'tcp', port: 80 },
  { name: 'api', protocol: 'tcp', port: 8080 },
  { name: 'db', protocol: 'tcp', port: 5432 },
  { name: 'cache', protocol: 'tcp', port: 6379 },
  { name: 'dns', protocol: 'udp', port: 53 },
  { name: 'auth', protocol: 'tcp', port: 9000 },
  { name: 'queue', protocol: 'tcp', port: 5672 },
  { name: 'metrics', protocol: 'udp', port: 8125 },
  { name: 'search', protocol: 'tcp', port: 9200 },
  { name: 'frontend', protocol: 'tcp', port: 3000 },
];
/** Kubernetes' random-suffix alphabet (no vowels, no look-alikes). */
const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const suffix = (rng: Rng, n: number): string =>
  Array.from({ length: n }, () => SUFFIX_CHARS[rng.int(SUFFIX_CHARS.length)]).join('');

/**
 * @example
 * const c = generateSimCluster({ ports: 200, acls: 40, lbs: 20, seed: 1 });
 * validateTopology(c.topology); // []
 * c.pods[0].port; // 'web-0-xxxxxxxxxx-xxxxx.ns-0'
 */
export function generateSimCluster(params: SimTopologyParams = {}): SimCluster {
  const nPods = Math.max(1, Math.floor(params.ports ?? 5000));
  const nAcls = Math.max(0, Math.floor(params.acls ?? 1000));
  const nLbs = Math.max(0, Math.floor(params.lbs ?? 500));
  const nSubnets = Math.max(1, Math.floor(params.subnets ?? 10));
  const seed = params.seed ?? 1;
  const rng = new Rng(seed);
  const ipam = new IPAM({ random: seededRandomBytes(seed) });
  const rows = emptyRows();
  rows.router.push({ name: CLUSTER_ROUTER, options: {}, loadBalancers: [], externalIds: VENDOR });

  // Router port MACs apart from each other (pod MACs come from the IPAM, which keeps its own apart).
  const macs = new Set<number>();
  const join = addSubnet(rows, ipam, rng, macs, JOIN_SWITCH, '100.64.0.0/16');
  const subnets = Array.from({ length: nSubnets }, (_, i) =>
    addSubnet(rows, ipam, rng, macs, i === 0 ? 'ovn-default' : `subnet-${i}`, `10.${16 + i}.0.0/16`),
  );
  const nodes = Array.from({ length: Math.max(1, Math.ceil(nPods / PODS_PER_NODE)) }, (_, i) =>
    addNode(rows, ipam, `kovn-node-${i + 1}`),
  );
  const { pods, apps } = addPods(rows, ipam, rng, { nPods, subnets, nodes });
  const services = addServices(rows, rng, { nLbs, apps, subnets });
  const policies = policyRows(rows, rng, { acls: nAcls, nodes, pods, apps });

  const { topology, issues } = buildTopology(rows);
  if (issues.length > 0) throw new Error(`bench sim topology: ${issues.map((i) => i.message).join('; ')}`);
  return {
    topology,
    join,
    subnets,
    nodes,
    pods,
    apps,
    services,
    policies,
    counts: {
      ports: pods.length,
      acls: rows.acl.length,
      lbs: rows.loadBalancer.length,
      portGroups: rows.portGroup.length,
      addressSets: rows.addressSet.length,
    },
  };
}

function uniqueMac(rng: Rng, used: Set<number>): number {
  for (;;) {
    // Kube-OVN's util.GenerateMac: 00:00:00 and three random bytes.
    const mac = rng.int(0x1000000);
    if (mac !== 0 && !used.has(mac)) {
      used.add(mac);
      return mac;
    }
  }
}
/** A subnet: its switch, the router port and router-type switch port, its IPAM subnet and the 31000 policy. */
function addSubnet(rows: Rows, ipam: IPAM, rng: Rng, macs: Set<number>, name: string, cidr: string): ClusterSubnet {
  const r = ipam.setSubnet({ name, cidrBlock: cidr });
  if (!r.ok) throw new Error(`bench sim: subnet ${name}: ${r.issues.map((i) => i.message).join('; ')}`);
  const gateway = parseIPv4(cidr.split('/')[0]!) + 1;
  const prefix = cidr.split('/')[1]!;
  const routerMac = uniqueMac(rng, macs);
  const routerPort = `${CLUSTER_ROUTER}-${name}`;
  rows.switch.push({ name, loadBalancers: [], otherConfig: {}, externalIds: { ...VENDOR, subnet: name } });
  rows.routerPort.push({
    name: routerPort,
    router: CLUSTER_ROUTER,
    mac: formatMAC(routerMac),
    networks: [`${formatIPv4(gateway)}/${prefix}`],
    gatewayChassis: [],
    options: {},
    externalIds: VENDOR,
  });
  rows.switchPort.push({
    name: `${name}-${CLUSTER_ROUTER}`,
    switch: name,
    type: 'router',
    addresses: ['router'],
    portSecurity: [],
    options: { 'router-port': routerPort },
    externalIds: VENDOR,
  });
  rows.routerPolicy.push({
    router: CLUSTER_ROUTER,
    priority: 31000,
    match: parseMatch(`ip4.dst == ${cidr}`),
    action: 'allow',
    nexthops: [],
    options: {},
    externalIds: { ...VENDOR, subnet: name },
  });
  return { name, cidr, gateway, routerPort, routerMac };
}

function lease(ipam: IPAM, subnet: string, owner: string): { ip: number; mac: number } {
  const r = ipam.allocate({ subnet, owner });
  if (!r.ok) throw new Error(`bench sim: IPAM ${owner} in ${subnet}: ${r.error.message}`);
  return { ip: r.lease.v4!, mac: r.lease.mac };
}

function addNode(rows: Rows, ipam: IPAM, name: string): ClusterNode {
  const port = `node-${name}`;
  const { ip, mac } = lease(ipam, JOIN_SWITCH, port);
  rows.switchPort.push({
    name: port,
    switch: JOIN_SWITCH,
    type: '',
    addresses: [`${formatMAC(mac)} ${formatIPv4(ip)}`],
    portSecurity: [],
    options: {},
    externalIds: { ...VENDOR, node: name },
  });
  return { name, port, ip, mac };
}

/**
 * Namespaces of 50 pods, apps (Deployments) of 5 replicas, in document order: IPAM hands out the lowest free address.
 */
function addPods(
  rows: Rows,
  ipam: IPAM,
  rng: Rng,
  o: { nPods: number; subnets: readonly ClusterSubnet[]; nodes: readonly ClusterNode[] },
): { pods: ClusterPod[]; apps: Map<string, Map<string, ClusterPod[]>> } {
  const pods: ClusterPod[] = [];
  const apps = new Map<string, Map<string, ClusterPod[]>>();
  for (let i = 0; pods.length < o.nPods; i++) {
    const namespace = `ns-${i}`;
    const subnet = o.subnets[i % o.subnets.length]!;
    const byApp = new Map<string, ClusterPod[]>();
    apps.set(namespace, byApp);
    for (let k = 0; k < PODS_PER_NAMESPACE / PODS_PER_APP && pods.length < o.nPods; k++) {
      const kind = APP_KINDS[k % APP_KINDS.length]!;
      const app: App = { ...kind, name: `${kind.name}-${k}` };
      const rsHash = suffix(rng, 10);
      const members: ClusterPod[] = [];
      byApp.set(app.name, members);
      for (let r = 0; r < PODS_PER_APP && pods.length < o.nPods; r++) {
        const name = `${app.name}-${rsHash}-${suffix(rng, 5)}`;
        const port = `${name}.${namespace}`;
        const node = o.nodes[pods.length % o.nodes.length]!;
        const { ip, mac } = lease(ipam, subnet.name, port);
        rows.switchPort.push({
          name: port,
          switch: subnet.name,
          type: '',
          addresses: [`${formatMAC(mac)} ${formatIPv4(ip)}`],
          portSecurity: [],
          options: {},
          externalIds: { ...VENDOR, pod: `${namespace}/${name}`, ls: subnet.name },
        });
        const pod: ClusterPod = { name, namespace, port, subnet, node, app, ip, mac };
        members.push(pod);
        pods.push(pod);
      }
    }
  }
  return { pods, apps };
}

/** One LB row per Service, spread evenly over the apps; every pod switch carries every LB. */
function addServices(
  rows: Rows,
  rng: Rng,
  o: { nLbs: number; apps: Map<string, Map<string, ClusterPod[]>>; subnets: readonly ClusterSubnet[] },
): ClusterService[] {
  const all = [...o.apps.values()].flatMap((m) => [...m.values()]).filter((ps) => ps.length > 0);
  const services: ClusterService[] = [];
  for (let k = 0; k < o.nLbs && all.length > 0; k++) {
    const members = all[Math.floor((k * all.length) / o.nLbs)]!;
    const first = members[0]!;
    const count = Math.min(members.length, 1 + rng.int(3));
    const backends = members.slice(0, count);
    // Service port 80 → the app's target port (UDP services keep their port, as DNS does).
    const port = first.app.protocol === 'udp' ? first.app.port : 80;
    const vip = FIRST_VIP + k;
    const svcName = `${first.app.name}-svc-${k}`;
    const lb = `cluster-${first.app.protocol}-loadbalancer.${first.namespace}.${svcName}`;
    rows.loadBalancer.push({
      name: lb,
      vips: { [`${formatIPv4(vip)}:${port}`]: backends.map((b) => `${formatIPv4(b.ip)}:${b.app.port}`).join(',') },
      protocol: first.app.protocol,
      selectionFields: [],
      options: {},
      externalIds: { ...VENDOR, service: `${first.namespace}/${svcName}` },
    });
    services.push({ lb, namespace: first.namespace, name: svcName, vip, port, protocol: first.app.protocol, backends });
  }
  const names = services.map((s) => s.lb);
  for (const [i, sw] of rows.switch.entries()) {
    if (sw.name !== JOIN_SWITCH) rows.switch[i] = { ...sw, loadBalancers: names };
  }
  return services;
}
