/**
 * The NetworkPolicy conformance suite (../shared/conformance/netpol, read in
 * place) turned into the network Kube-OVN would build for each of its files,
 * through kovn's translations: router `ovn-cluster` with its default route,
 * `ovn-default` and `join` with their 31000 policies, the nodes' join ports
 * and 29000/30000 policies, the pods, and the policies through
 * `networkPolicyRows`. Probes follow docs/architecture.md: a host outside the
 * cluster is reached through the source pod's node (the packet leaves at
 * `node-<node>`), and reaches a pod entering the router from the join switch
 * at the pod's node. Selector resolution is this module's own small reading
 * of the objects (test-only); the controller's scenario runner replaces it.
 */
import { readdirSync } from 'node:fs';
import { loadScenario } from '../scenarios/load.ts';
import { join, resolve } from 'node:path';
import { formatIPv4, formatMAC } from '../model/addr/index.ts';
import { sctpPacket, tcpPacket, udpPacket } from '../model/packet/index.ts';
import { buildTopology, type Tables } from '../model/topology/index.ts';
import { type ConnectionProbe, type compileNetwork, probeConnection } from '../sim/index.ts';
import { parseSubnetSpec } from '../model/ipam/index.ts';
import { nodeRows, podNodeMemberships, podPortRow, subnetRows, vpcRows } from '../controller/translate/index.ts';
import {
  type L4,
  networkPolicyRows,
  type PolicyPeerInput,
  type PolicyPod,
  type PolicyPortInput,
  type PolicyRuleInput,
} from '../controller/translate/network-policy.ts';

export const DIR = resolve(
  process.env.KOVN_NETPOL_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'conformance', 'netpol'),
);

// biome-ignore lint/suspicious/noExplicitAny: plain YAML objects
export type Obj = any;
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function matches(sel: Selector | undefined | null, labels: Record<string, string>): boolean {
  if (sel === undefined || sel === null) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    const ok =
      e.operator === 'In' ? inValues : e.operator === 'NotIn' ? !inValues : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}

export interface Pod extends PolicyPod {
  readonly ns: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly mac: string;
  readonly node: string;
}

interface Node {
  readonly name: string;
  readonly joinIp: string;
  readonly joinMac: string;
}

/** The objects of a file, in document order, keyed `Kind/ns/name` (a later apply replaces in place), read by the
 * scenario loader. */
export function documents(file: string): { objects: Map<string, Obj>; scenario: Obj } {
  const loaded = loadScenario(file);
  const objects = new Map<string, Obj>();
  for (const o of loaded.objects) objects.set(objectKey(o.object), o.object);
  const scenario = {
    spec: {
      cluster: loaded.cluster,
      expect: loaded.expect,
      steps: loaded.steps.map((st) => ({ apply: st.apply.map((o) => o.object), delete: st.delete, expect: st.expect })),
    },
  };
  return { objects, scenario };
}

export const objectKey = (d: Obj) => `${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`;

export function load(file: string, objects: ReadonlyMap<string, Obj>, scenario: Obj) {
  const namespaces = new Map<string, Record<string, string>>();
  const pods: Pod[] = [];
  const policies: Obj[] = [];
  for (const d of objects.values()) {
    if (d.kind === 'Namespace') namespaces.set(d.metadata.name, d.metadata.labels ?? {});
    else if (d.kind === 'NetworkPolicy') policies.push(d);
    else if (d.kind === 'Pod') {
      const ns = d.metadata.namespace ?? 'default';
      const ip = d.metadata.annotations['ovn.kubernetes.io/ip_address'] as string;
      const namedPorts = new Map<string, { protocol: L4; port: number }>();
      for (const c of d.spec?.containers ?? [])
        for (const p of c.ports ?? [])
          if (p.name) namedPorts.set(p.name, { protocol: p.protocol ?? 'TCP', port: p.containerPort });
      pods.push({
        ns,
        name: d.metadata.name,
        labels: d.metadata.labels ?? {},
        port: `${d.metadata.name}.${ns}`,
        ips: [ip],
        namedPorts,
        mac: formatMAC(0x0a5800000000 + ipNumber(ip)),
        node: '',
      });
    }
  }
  for (const p of pods) if (!namespaces.has(p.ns)) namespaces.set(p.ns, { 'kubernetes.io/metadata.name': p.ns });
  const cluster = scenario.spec.cluster ?? {};
  const join = parseSubnetSpec({ name: 'join', cidrBlock: cluster.joinSubnet ?? '100.64.0.0/16' });
  if (!join.ok || !join.value.v4) throw new Error(`${file}: bad joinSubnet`);
  const joinNet = join.value.v4.network;
  const nodes: Node[] = Array.from({ length: cluster.nodes ?? 2 }, (_, i) => ({
    name: `kovn-node-${i + 1}`,
    joinIp: formatIPv4(joinNet + 2 + i),
    joinMac: formatMAC(0x0a5864400000 + i + 2),
  }));
  // Round-robin in document order.
  const placed = pods.map((p, i) => ({ ...p, node: nodes[i % nodes.length]!.name }));
  return { namespaces, pods: placed, policies, scenario, nodes, cluster, joinGateway: formatIPv4(joinNet + 1) };
}

/** A MAC that follows the pod's address, so a pod re-created in a later step keeps it. */
function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0) & 0xffffff;
}

function peers(list: Obj[] | undefined, ns: string, all: ReturnType<typeof load>): PolicyRuleInput['peers'] {
  if (list === undefined || list === null || list.length === 0) return undefined;
  return list.map((peer: Obj): PolicyPeerInput => {
    if (peer.ipBlock) return { kind: 'ipBlock', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except ?? [] };
    const inNs = (p: Pod) =>
      peer.namespaceSelector ? matches(peer.namespaceSelector, all.namespaces.get(p.ns) ?? {}) : p.ns === ns;
    return { kind: 'pods', pods: all.pods.filter((p) => inNs(p) && matches(peer.podSelector, p.labels)) };
  });
}

const ports = (list: Obj[] | undefined): PolicyPortInput[] =>
  (list ?? []).map((p: Obj) => ({
    protocol: p.protocol ?? 'TCP',
    ...(p.port !== undefined ? { port: p.port } : {}),
    ...(p.endPort !== undefined ? { endPort: p.endPort } : {}),
  }));

export const ROUTER_MAC = { 'ovn-default': '0a:58:0a:f4:00:01', join: '0a:58:64:40:00:01' } as const;

export function topologyOf(all: ReturnType<typeof load>) {
  const vpc = vpcRows({
    name: 'ovn-cluster',
    staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: all.joinGateway }],
  }).value;
  const rows = {
    router: [vpc.router] as Tables['router'][],
    staticRoute: [...vpc.staticRoutes] as Tables['staticRoute'][],
    routerPolicy: [] as Tables['routerPolicy'][],
    routerPort: [] as Tables['routerPort'][],
    switch: [] as Tables['switch'][],
    switchPort: [] as Tables['switchPort'][],
    portGroup: [] as Tables['portGroup'][],
    addressSet: [] as Tables['addressSet'][],
    acl: [] as Tables['acl'][],
  };
  const issues: unknown[] = [];
  for (const [name, cidr] of [
    ['ovn-default', all.cluster.defaultSubnet ?? '10.16.0.0/16'],
    ['join', all.cluster.joinSubnet ?? '100.64.0.0/16'],
  ] as const) {
    const cfg = parseSubnetSpec({ name, cidrBlock: cidr });
    if (!cfg.ok) throw new Error(JSON.stringify(cfg.issues));
    const t = subnetRows({
      config: cfg.value,
      router: 'ovn-cluster',
      gatewayMac: ROUTER_MAC[name],
      nodeSwitchCidr: all.cluster.joinSubnet ?? '100.64.0.0/16',
      loadBalancers: [],
      defaultVpc: true,
    });
    issues.push(...t.issues);
    rows.switch.push(t.value.switch);
    rows.routerPort.push(t.value.routerPort);
    rows.switchPort.push(t.value.switchPort);
    rows.routerPolicy.push(...t.value.policies);
  }
  const memberships = new Map<string, string[]>();
  for (const n of all.nodes) {
    const t = nodeRows({
      name: n.name,
      joinSwitch: 'join',
      router: 'ovn-cluster',
      joinMac: n.joinMac,
      joinIps: [n.joinIp],
      internalIps: [],
      distributedSubnets: [{ name: 'ovn-default', cidrs: [all.cluster.defaultSubnet ?? '10.16.0.0/16'] }],
      networkPolicyExists: all.policies.length > 0,
    });
    rows.switchPort.push(t.port);
    rows.routerPolicy.push(...t.policies);
    rows.acl.push(...t.acls);
    for (const g of t.portGroups) memberships.set(g.name, []);
    rows.portGroup.push(...t.portGroups.map((g) => ({ ...g, ports: memberships.get(g.name)! })));
  }
  for (const p of all.pods) {
    rows.switchPort.push(
      podPortRow({
        pod: p.name,
        namespace: p.ns,
        subnet: 'ovn-default',
        router: 'ovn-cluster',
        mac: p.mac,
        ips: p.ips,
        cidrs: [],
        gateways: [],
      }),
    );
    for (const c of podNodeMemberships(p.port, p.node, 'ovn-default', true))
      if ('members' in c) memberships.get(c.key)?.push(...c.members);
  }
  for (const np of all.policies) {
    const ns = np.metadata.namespace ?? 'default';
    const types: string[] = np.spec.policyTypes ?? ['Ingress', ...(np.spec.egress ? ['Egress'] : [])];
    const rule = (dir: 'from' | 'to') => (r: Obj) => ({ peers: peers(r?.[dir], ns, all), ports: ports(r?.ports) });
    const t = networkPolicyRows({
      name: np.metadata.name,
      namespace: ns,
      selected: all.pods.filter((p) => p.ns === ns && matches(np.spec.podSelector, p.labels)),
      families: ['IPv4'],
      clusterPods: all.pods,
      ...(types.includes('Ingress') ? { ingress: (np.spec.ingress ?? []).map(rule('from')) } : {}),
      ...(types.includes('Egress') ? { egress: (np.spec.egress ?? []).map(rule('to')) } : {}),
    });
    issues.push(...t.issues);
    rows.portGroup.push(t.value.portGroup);
    rows.addressSet.push(...t.value.addressSets);
    rows.acl.push(...t.value.acls);
  }
  const built = buildTopology(rows);
  return { topology: built.topology, issues: [...issues, ...built.issues] };
}

export function files(): string[] {
  return ['netpol-analyzer', 'upstream-e2e'].flatMap((sub) =>
    readdirSync(join(DIR, sub))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(DIR, sub, f)),
  );
}

export type Net = ReturnType<typeof compileNetwork>;

/** One probe as docs/architecture.md defines it (pods and outside hosts; no Services in this suite). */
/** The first packet of a probe: where it enters, what it is, and the port it must reach. */
export function probeRequest(
  all: ReturnType<typeof load>,
  byName: ReadonlyMap<string, Pod>,
  e: Obj,
  n: number,
): ConnectionProbe | 'outside-to-outside' {
  const from = byName.get(e.from);
  const to = byName.get(e.to);
  const sport = 30000 + (n % 20000);
  const make = (spec: { ethSrc: string; ethDst: string; src: string; dst: string }) => {
    const full = { ...spec, sport, dport: e.port };
    return e.protocol === 'UDP' ? udpPacket(full) : e.protocol === 'SCTP' ? sctpPacket(full) : tcpPacket(full);
  };
  if (from && to) {
    const packet = make({ ethSrc: from.mac, ethDst: to.mac, src: from.ips[0]!, dst: to.ips[0]! });
    return { inport: from.port, packet, target: to.port };
  }
  if (from) {
    // To a host outside: it must leave through the source pod's node.
    const packet = make({ ethSrc: from.mac, ethDst: ROUTER_MAC['ovn-default'], src: from.ips[0]!, dst: e.to });
    return { inport: from.port, packet, target: `node-${from.node}` };
  }
  if (to) {
    // From a host outside: it enters the router from the join switch at the pod's node.
    const n0 = all.nodes.find((x) => x.name === to.node)!;
    const packet = make({ ethSrc: n0.joinMac, ethDst: ROUTER_MAC.join, src: e.from, dst: to.ips[0]! });
    return { inport: `node-${n0.name}`, packet, target: to.port };
  }
  return 'outside-to-outside';
}

/** One probe on the simulator, as docs/architecture.md defines it (pods and outside hosts). */
export function probe(
  net: Net,
  all: ReturnType<typeof load>,
  byName: ReadonlyMap<string, Pod>,
  e: Obj,
  n: number,
): ReturnType<typeof probeConnection> | 'outside-to-outside' {
  const req = probeRequest(all, byName, e, n);
  return req === 'outside-to-outside' ? req : probeConnection(net, req);
}
