/**
 * Fuzz target of the controller's object decoding: valid objects of every
 * kind with one value anywhere replaced by arbitrary JSON (or a key added or
 * dropped) ⇒ a typed view and issues that each name the object and a field;
 * never an exception.
 */
import fc from 'fast-check';
import { fuzzTarget } from '../../test/fuzz/target.ts';
import type { KubeObject } from '../cluster/types.ts';
import { DECODERS } from '../registry.ts';

const BASES: readonly KubeObject[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'a',
      namespace: 'x',
      labels: { app: 'a' },
      annotations: { 'ovn.kubernetes.io/ip_address': '10.16.0.9' },
    },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }] }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  },
  {
    apiVersion: 'kubeovn.io/v1',
    kind: 'Subnet',
    metadata: { name: 's' },
    spec: {
      cidrBlock: '10.1.0.0/16',
      namespaces: ['x'],
      namespaceSelectors: [{ matchLabels: { team: 'a' } }],
      gatewayType: 'centralized',
      gatewayNode: 'n1',
      private: true,
      allowSubnets: ['10.2.0.0/16'],
      acls: [{ direction: 'to-lport', priority: 1000, match: 'ip4', action: 'drop' }],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'np', namespace: 'x' },
    spec: {
      podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['a'] }] },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [{ namespaceSelector: {}, podSelector: { matchLabels: { a: 'b' } } }],
          ports: [{ port: 'http', endPort: 90 }],
        },
      ],
      egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }] }],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'x' },
    spec: {
      clusterIP: '10.96.0.10',
      selector: { app: 'a' },
      ports: [{ name: 'h', port: 80, targetPort: 'http' }],
      sessionAffinity: 'ClientIP',
    },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-1', namespace: 'x', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'h', port: 80 }],
    endpoints: [{ addresses: ['10.16.0.9'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'a' } }],
  },
  {
    apiVersion: 'kubeovn.io/v1',
    kind: 'Vpc',
    metadata: { name: 'v' },
    spec: {
      staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: '10.0.0.1' }],
      policyRoutes: [{ priority: 10, match: 'ip4', action: 'allow' }],
      vpcPeerings: [{ remoteVpc: 'w', localConnectIP: '169.254.0.1/30' }],
    },
  },
  {
    apiVersion: 'kubeovn.io/v1',
    kind: 'IPPool',
    metadata: { name: 'p' },
    spec: { subnet: 's', ips: ['10.1.0.10..10.1.0.20'], namespaces: ['x'] },
  },
  {
    apiVersion: 'kubeovn.io/v1',
    kind: 'IP',
    metadata: { name: 'a.x' },
    spec: { podName: 'a', namespace: 'x', subnet: 's', ipAddress: '10.1.0.10', macAddress: '0a:58:0a:01:00:0a' },
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1' },
    status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] },
  },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { team: 'a' } } },
];

const DECODE = DECODERS;

/** Every path to a value inside `v` (objects and arrays walked). */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

function replaced(base: unknown, path: readonly (string | number)[], value: unknown, drop: boolean): unknown {
  const root = structuredClone(base) as Record<string | number, unknown>;
  if (path.length === 0) return root;
  let cur = root;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (drop && !Array.isArray(cur)) delete cur[last];
  else cur[last] = value;
  return root;
}

const mutated = fc
  .tuple(fc.nat(BASES.length - 1), fc.nat(), fc.jsonValue({ maxDepth: 3 }), fc.boolean(), fc.boolean())
  .map(([b, p, value, drop, keep]) => {
    const base = BASES[b]!;
    if (keep) return base;
    // metadata.name and kind stay: the cluster guarantees them.
    const all = paths(base).filter((x) => x.length > 1 && !(x[0] === 'metadata' && x[1] === 'name'));
    return replaced(base, all[p % all.length]!, value, drop) as KubeObject;
  });

export const targets = [
  fuzzTarget({
    name: 'controller/decode',
    arbitrary: mutated,
    run(o: KubeObject) {
      const d = DECODE[o.kind]!(o);
      for (const i of d.issues) {
        if (!i.object.startsWith(`${o.kind}/`) || i.field === '')
          throw new Error(`issue without object or field: ${JSON.stringify(i)}`);
      }
      return d.issues.length === 0 ? 'accepted' : 'rejected';
    },
  }),
];
