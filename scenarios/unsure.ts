/**
 * Which probes' verdicts may depend on something kovn did not act on
 * (docs/architecture.md, "Honest answers"): a warning with a scope (a subnet,
 * VPC, namespace, pod, Service, the pods a NetworkPolicy selects, addresses
 * an object not acted on claims, or the whole cluster) makes every probe
 * that starts, ends or is resolved inside it `unsure`, with the warning as
 * the reason. An unsure probe never counts as passing.
 *
 * What a pod is touched by is computed once per pod and kept (`podHits`):
 * `sim connectivity` asks for every pair, so a probe costs two lookups, not
 * a walk over every warning.
 */
import { type CIDR, containsIP, tryParseCIDR, tryParseIP } from '../model/addr/index.ts';
import type { KubeObject } from '../kube/cluster/types.ts';
import { decodeNetworkPolicy, type LabelSelector, selects } from '../kube/objects/objects.ts';
import { formatWarning, type VerdictScope, type Warning } from '../kube/objects/warnings.ts';
import type { ScenarioProbe } from './load.ts';
import type { ProbeIndex, ProbePod } from './probe.ts';

/** What a probe touches beyond pods, as scopes can name it. */
interface Others {
  readonly services: readonly { readonly namespace: string; readonly name: string }[];
  /** Addresses the probe is sent to or from that are no pod's (outside hosts, cluster addresses, VIPs). */
  readonly addresses: readonly string[];
  /** VPCs the packet enters by (an outside source enters the default VPC). */
  readonly vpcs: readonly string[];
}

/** The probe-independent part: the warnings with a scope, policies by name, and per-pod results. */
export interface UnsureIndex {
  readonly warnings: readonly Warning[];
  readonly policies: ReadonlyMap<string, { readonly namespace: string; readonly podSelector: LabelSelector }>;
  /** Pod key → indices (into `warnings`) of the warnings touching it; filled as pods are asked about. */
  readonly podHits: Map<string, readonly number[]>;
  /** Pod port (`<pod>.<ns>`) → pod, for a Service's endpoints; address → its pods, for a probe to an address. */
  portIndex?: Map<string, ProbePod>;
  ipIndex?: Map<string, ProbePod[]>;
  /** Each CIDR text of a scope or subnet, parsed once. */
  readonly parsed: Map<string, CIDR | undefined>;
}

/**
 * @example const u = unsureIndex(warnings, policies); unsureReason(u, ix, probe) // undefined, or the reason
 */
export function unsureIndex(warnings: readonly Warning[], policies: readonly KubeObject[]): UnsureIndex {
  const byName = new Map<string, { namespace: string; podSelector: LabelSelector }>();
  for (const o of policies) {
    const v = decodeNetworkPolicy(o).value;
    byName.set(`${v.namespace}/${v.name}`, { namespace: v.namespace, podSelector: v.podSelector });
  }
  return {
    warnings: warnings.filter((w) => w.scope !== undefined && w.scope.length > 0),
    policies: byName,
    podHits: new Map(),
    parsed: new Map(),
  };
}

function inCidrs(u: UnsureIndex, ip: string, cidrs: readonly string[]): boolean {
  const a = tryParseIP(ip);
  if (a === undefined) return false;
  return cidrs.some((text) => {
    if (!u.parsed.has(text)) u.parsed.set(text, tryParseCIDR(text.trim(), { allowBare: true }));
    const c = u.parsed.get(text);
    return c !== undefined && containsIP(c, a);
  });
}

function touchesPod(u: UnsureIndex, s: VerdictScope, p: ProbePod): boolean {
  switch (s.kind) {
    case 'cluster':
      return true;
    case 'vpc':
      return p.router === s.name;
    case 'subnet':
      return p.subnet === s.name;
    case 'namespace':
      return p.namespace === s.name;
    case 'pod':
      return p.namespace === s.namespace && p.name === s.name;
    case 'service':
      return false;
    case 'policy': {
      const np = u.policies.get(`${s.namespace}/${s.name}`);
      // A policy not in the cluster (refused): what it meant to select is unknown, its namespace is touched.
      if (np === undefined) return p.namespace === s.namespace;
      return p.namespace === np.namespace && selects(np.podSelector, p.labels);
    }
    case 'addresses':
      return p.ips.some((ip) => inCidrs(u, ip, s.cidrs));
  }
}

function touchesOthers(u: UnsureIndex, ix: ProbeIndex, s: VerdictScope, t: Others): boolean {
  switch (s.kind) {
    case 'cluster':
      return true;
    case 'vpc':
      return t.vpcs.includes(s.name);
    case 'subnet':
      return t.addresses.some((a) => inCidrs(u, a, ix.subnets.get(s.name)?.cidrs ?? []));
    case 'namespace':
      return t.services.some((x) => x.namespace === s.name);
    case 'service':
      return t.services.some((x) => x.namespace === s.namespace && x.name === s.name);
    case 'addresses':
      return t.addresses.some((a) => inCidrs(u, a, s.cidrs));
    default:
      return false;
  }
}

function podHits(u: UnsureIndex, p: ProbePod): readonly number[] {
  let hits = u.podHits.get(p.key);
  if (hits === undefined) {
    hits = u.warnings.flatMap((w, i) => ((w.scope ?? []).some((s) => touchesPod(u, s, p)) ? [i] : []));
    u.podHits.set(p.key, hits);
  }
  return hits;
}

/** The pods, Services and addresses one end of a probe names. */
function endOf(
  u: UnsureIndex,
  ix: ProbeIndex,
  text: string,
  into: { pods: ProbePod[]; services: Others['services'][number][]; addresses: string[] },
): void {
  if (text.startsWith('svc/')) {
    const key = text.slice(4);
    const [namespace = '', name = ''] = key.split('/');
    into.services.push({ namespace, name });
    const svc = ix.services.get(key);
    if (u.portIndex === undefined) u.portIndex = new Map([...ix.pods.values()].map((p) => [p.port, p]));
    // A Service probe's verdict is its endpoints': they are touched too.
    for (const eps of svc?.endpoints.values() ?? [])
      for (const e of eps) {
        const pod = u.portIndex.get(e.port);
        if (pod) into.pods.push(pod);
      }
    for (const ip of svc?.clusterIPs ?? []) into.addresses.push(ip);
    return;
  }
  const pod = ix.pods.get(text);
  if (pod) into.pods.push(pod);
  else if (!text.includes('/') || text.includes(':')) {
    // An address: the pods holding it are touched, and the address itself.
    into.addresses.push(text);
    if (u.ipIndex === undefined) {
      u.ipIndex = new Map();
      for (const p of ix.pods.values())
        for (const ip of p.ips) {
          const list = u.ipIndex.get(ip);
          if (list === undefined) u.ipIndex.set(ip, [p]);
          else list.push(p);
        }
    }
    into.pods.push(...(u.ipIndex.get(text) ?? []));
  }
}

/**
 * Why the probe's verdict may be wrong (the first warning whose scope it
 * touches, and how many more), or undefined when nothing not acted on is in
 * its way.
 */
export function unsureReason(u: UnsureIndex, ix: ProbeIndex, e: ScenarioProbe): string | undefined {
  if (u.warnings.length === 0) return undefined;
  const acc = { pods: [] as ProbePod[], services: [] as Others['services'][number][], addresses: [] as string[] };
  endOf(u, ix, e.from, acc);
  endOf(u, ix, e.to, acc);
  const others: Others = {
    services: acc.services,
    addresses: acc.addresses,
    vpcs: acc.pods.length > 0 ? [] : [ix.settings.clusterRouter],
  };
  const hits = new Set<number>();
  for (const p of acc.pods) for (const i of podHits(u, p)) hits.add(i);
  if (others.services.length > 0 || others.addresses.length > 0 || others.vpcs.length > 0)
    u.warnings.forEach((w, i) => {
      if (!hits.has(i) && (w.scope ?? []).some((s) => touchesOthers(u, ix, s, others))) hits.add(i);
    });
  if (hits.size === 0) return undefined;
  const first = Math.min(...hits);
  const more = hits.size > 1 ? ` (and ${hits.size - 1} more warning${hits.size > 2 ? 's' : ''})` : '';
  return `may depend on what kovn does not act on: ${formatWarning(u.warnings[first]!)}${more}`;
}
