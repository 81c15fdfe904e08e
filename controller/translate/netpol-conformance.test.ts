/**
 * The NetworkPolicy translation against the conformance suite
 * (../shared/conformance/netpol, read in place): every file's pods on one
 * switch, its policies through `networkPolicyRows`, every pod-to-pod probe of
 * its first step on the simulator. Selector resolution here is this test's
 * own small reading of the objects; the controller's scenario runner replaces
 * it. Probes with a peer outside the cluster need the gateway path and are
 * left to the runner (counted and printed, never silently).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { formatMAC } from '../../model/addr/index.ts';
import { sctpPacket, tcpPacket, udpPacket } from '../../model/packet/index.ts';
import { buildTopology, type Tables } from '../../model/topology/index.ts';
import { compileNetwork, probeConnection } from '../../sim/index.ts';
import {
  type L4,
  networkPolicyRows,
  type PolicyPeerInput,
  type PolicyPod,
  type PolicyPortInput,
  type PolicyRuleInput,
} from './network-policy.ts';

const DIR = resolve(
  process.env.KOVN_NETPOL_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance', 'netpol'),
);

// biome-ignore lint/suspicious/noExplicitAny: plain YAML objects
type Obj = any;
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

interface Pod extends PolicyPod {
  readonly ns: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly mac: string;
}

function load(file: string) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJSON() as Obj)
    .filter(Boolean);
  const namespaces = new Map<string, Record<string, string>>();
  const pods: Pod[] = [];
  const policies: Obj[] = [];
  let scenario: Obj;
  for (const d of docs) {
    if (d.kind === 'Namespace') namespaces.set(d.metadata.name, d.metadata.labels ?? {});
    else if (d.kind === 'NetworkPolicy') policies.push(d);
    else if (d.kind === 'Scenario') scenario = d;
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
        mac: formatMAC(0x0a5800000000 + pods.length + 2),
      });
    }
  }
  for (const p of pods) if (!namespaces.has(p.ns)) namespaces.set(p.ns, { 'kubernetes.io/metadata.name': p.ns });
  return { namespaces, pods, policies, scenario };
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

function topologyOf(all: ReturnType<typeof load>) {
  const rows = {
    switch: [{ name: 'ovn-default', loadBalancers: [], otherConfig: {}, externalIds: {} }] as Tables['switch'][],
    switchPort: all.pods.map((p) => ({
      name: p.port,
      switch: 'ovn-default',
      type: '' as const,
      addresses: [`${p.mac} ${p.ips[0]}`],
      portSecurity: [],
      options: {},
      externalIds: {},
    })),
    portGroup: [] as Tables['portGroup'][],
    addressSet: [] as Tables['addressSet'][],
    acl: [] as Tables['acl'][],
  };
  const issues: unknown[] = [];
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

function files(): string[] {
  return ['netpol-analyzer', 'upstream-e2e'].flatMap((sub) =>
    readdirSync(join(DIR, sub))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(DIR, sub, f)),
  );
}

describe('NetworkPolicy translation on the conformance suite (step 0, pod-to-pod probes)', () => {
  it('finds the suite in place', () => {
    expect(statSync(DIR).isDirectory()).toBe(true);
    expect(files().length).toBeGreaterThanOrEqual(100);
  });

  it('gives every pod-to-pod probe the expected verdict', () => {
    let probes = 0;
    let external = 0;
    const wrong: string[] = [];
    for (const file of files()) {
      const all = load(file);
      const { topology, issues } = topologyOf(all);
      expect(issues, file).toEqual([]);
      const net = compileNetwork(topology);
      const byName = new Map(all.pods.map((p) => [`${p.ns}/${p.name}`, p]));
      for (const e of all.scenario.spec.expect ?? []) {
        const from = byName.get(e.from);
        const to = byName.get(e.to);
        if (!from || !to) {
          external++;
          continue;
        }
        probes++;
        const spec = {
          ethSrc: from.mac,
          ethDst: to.mac,
          src: from.ips[0]!,
          dst: to.ips[0]!,
          sport: 30000 + (probes % 20000),
          dport: e.port,
        };
        const packet =
          e.protocol === 'UDP' ? udpPacket(spec) : e.protocol === 'SCTP' ? sctpPacket(spec) : tcpPacket(spec);
        const r = probeConnection(net, { inport: from.port, packet, target: to.port });
        if (r.allowed !== e.allowed)
          wrong.push(
            `${file.split('/').slice(-2).join('/')}: ${e.from} → ${e.to} ${e.protocol}/${e.port}: want ${e.allowed}, ${r.reason ?? 'allowed'}`,
          );
      }
    }
    console.log(
      `netpol translation: ${probes - wrong.length}/${probes} pod-to-pod probes agree (${external} probes with an outside peer left to the scenario runner)`,
    );
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(probes).toBeGreaterThan(10_000);
  });
});
