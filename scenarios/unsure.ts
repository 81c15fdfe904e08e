/**
 * Which probes' verdicts may depend on something kovn did not act on
 * (docs/architecture.md, "Probes"): a warning with a scope (a subnet, VPC,
 * namespace, pod, Service, the pods a NetworkPolicy selects, addresses an
 * object not acted on claims, or the whole cluster) makes every probe that
 * starts, ends or is resolved inside it `unsure`, with the warning as the
 * reason. An unsure probe never counts as passing.
 */
import { containsCIDR, tryParseCIDR } from '../model/addr/index.ts';
import type { KubeObject } from '../controller/cluster/types.ts';
import { decodeNetworkPolicy, type LabelSelector, selects } from '../controller/kube/objects.ts';
import { formatWarning, type VerdictScope, type Warning } from '../controller/kube/warnings.ts';
import type { ScenarioProbe } from './load.ts';
import type { ProbeIndex, ProbePod } from './probe.ts';

/** What a probe touches, as scopes can name it. */
interface Touched {
  readonly pods: readonly ProbePod[];
  readonly services: readonly { readonly namespace: string; readonly name: string }[];
  /** Addresses the probe is sent to or from that are no pod's (outside hosts, cluster addresses). */
  readonly addresses: readonly string[];
  /** VPCs the packet starts in. */
  readonly vpcs: readonly string[];
}

/** The probe-independent part: policies by name, scoped warnings. */
export interface UnsureIndex {
  readonly warnings: readonly Warning[];
  readonly policies: ReadonlyMap<string, { readonly namespace: string; readonly podSelector: LabelSelector }>;
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
  return { warnings: warnings.filter((w) => w.scope !== undefined && w.scope.length > 0), policies: byName };
}

const inCidrs = (ip: string, cidrs: readonly string[]) => {
  const a = tryParseCIDR(ip, { allowBare: true });
  if (a === undefined) return false;
  return cidrs.some((c) => {
    const p = tryParseCIDR(c.trim(), { allowBare: true });
    return p !== undefined && p.family === a.family && containsCIDR(p, a);
  });
};

function touches(u: UnsureIndex, ix: ProbeIndex, s: VerdictScope, t: Touched): boolean {
  switch (s.kind) {
    case 'cluster':
      return true;
    case 'vpc':
      return t.vpcs.includes(s.name) || t.pods.some((p) => p.router === s.name);
    case 'subnet': {
      if (t.pods.some((p) => p.subnet === s.name)) return true;
      const cidrs = ix.subnets.get(s.name)?.cidrs ?? [];
      return t.addresses.some((a) => inCidrs(a, cidrs));
    }
    case 'namespace':
      return t.pods.some((p) => p.namespace === s.name) || t.services.some((x) => x.namespace === s.name);
    case 'pod':
      return t.pods.some((p) => p.namespace === s.namespace && p.name === s.name);
    case 'service':
      return t.services.some((x) => x.namespace === s.namespace && x.name === s.name);
    case 'policy': {
      const np = u.policies.get(`${s.namespace}/${s.name}`);
      if (np === undefined) return t.pods.some((p) => p.namespace === s.namespace);
      return t.pods.some((p) => p.namespace === np.namespace && selects(np.podSelector, p.labels));
    }
    case 'addresses':
      return (
        t.addresses.some((a) => inCidrs(a, s.cidrs)) || t.pods.some((p) => p.ips.some((ip) => inCidrs(ip, s.cidrs)))
      );
  }
}

/** The pods, Services and addresses one end of a probe names. */
function endOf(
  ix: ProbeIndex,
  text: string,
  into: { pods: ProbePod[]; services: Touched['services'][number][]; addresses: string[] },
): void {
  if (text.startsWith('svc/')) {
    const key = text.slice(4);
    const [namespace = '', name = ''] = key.split('/');
    into.services.push({ namespace, name });
    const svc = ix.services.get(key);
    // The Service's verdict is its endpoints': they are touched too.
    for (const eps of svc?.endpoints.values() ?? [])
      for (const e of eps) {
        const pod = [...ix.pods.values()].find((p) => p.port === e.port);
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
    for (const p of ix.pods.values()) if (p.ips.includes(text)) into.pods.push(p);
  }
}

/**
 * Why the probe's verdict may be wrong (the first warning whose scope it
 * touches, and how many more), or undefined when nothing not acted on is in
 * its way.
 */
export function unsureReason(u: UnsureIndex, ix: ProbeIndex, e: ScenarioProbe): string | undefined {
  if (u.warnings.length === 0) return undefined;
  const acc = { pods: [] as ProbePod[], services: [] as Touched['services'][number][], addresses: [] as string[] };
  endOf(ix, e.from, acc);
  endOf(ix, e.to, acc);
  const vpcs = acc.pods.length > 0 ? [] : [ix.settings.clusterRouter];
  const t: Touched = { ...acc, vpcs };
  const hits = u.warnings.filter((w) => (w.scope ?? []).some((s) => touches(u, ix, s, t)));
  if (hits.length === 0) return undefined;
  const more = hits.length > 1 ? ` (and ${hits.length - 1} more warning${hits.length > 2 ? 's' : ''})` : '';
  return `may depend on what kovn does not act on: ${formatWarning(hits[0]!)}${more}`;
}
