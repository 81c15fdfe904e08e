/**
 * The events of a model-based run, as data: what a user, a kubelet or a
 * flaky API server does to the cluster, and what happens to the controller
 * (a crash, a clean restart). Ops are plain JSON so a shrunk failing
 * sequence prints as a literal (`showOps`) that pastes into
 * regressions.test.ts as it is.
 *
 * The names, addresses and shapes come from small fixed pools, so random
 * sequences collide: a pod re-created under its old name, a static address
 * another pod holds, a policy replaced by another shape, a subnet moved to
 * another VPC while its pods run.
 */
import fc from 'fast-check';
import type { KubeObject } from '../../kube/cluster/types.ts';

export const NAMESPACES = ['default', 'a', 'b'] as const;
export const POD_NAMES = ['p1', 'p2', 'web-0', 'web-1'] as const;
export const NODES = ['n1', 'n2'] as const;
export const SUBNETS = { s1: '10.1.0.0/24', s2: '10.2.0.0/24' } as const;
/** Static addresses: in ovn-default (one of them the first the IPAM hands out), in s1, in s2. */
export const STATIC_IPS = ['10.16.0.2', '10.16.0.10', '10.1.0.10', '10.2.0.10'] as const;
export const ENDPOINTS = ['10.16.0.2', '10.16.0.3', '10.1.0.2'] as const;
/** How many NetworkPolicy shapes `netpolSpec` knows. */
export const NETPOL_SHAPES = 4;
/** Kinds whose watches the ops disturb. */
export const WATCHED = [
  'Pod',
  'Namespace',
  'NetworkPolicy',
  'Service',
  'EndpointSlice',
  'Subnet',
  'Vpc',
  'IP',
] as const;

type Ns = (typeof NAMESPACES)[number];
type PodName = (typeof POD_NAMES)[number];
type SubnetName = keyof typeof SUBNETS;
export type WatchedKind = (typeof WATCHED)[number];
export type WatchFault = 'dup' | 'hold' | 'drop' | 'ok';

export type Op =
  /** Create a pod (nothing when the name is taken): `ip` is the static-address annotation, `sts` a StatefulSet owner. */
  | {
      readonly op: 'pod';
      readonly ns: Ns;
      readonly name: PodName;
      readonly node?: string;
      readonly app?: string;
      readonly ip?: string;
      readonly sts?: boolean;
      readonly host?: boolean;
    }
  | { readonly op: 'schedule'; readonly ns: Ns; readonly name: PodName; readonly node: string }
  | {
      readonly op: 'relabel';
      readonly kind: 'Pod' | 'Namespace';
      readonly ns: Ns;
      readonly name?: PodName;
      readonly value?: string;
    }
  | { readonly op: 'ns'; readonly name: Ns; readonly team?: string }
  | { readonly op: 'netpol'; readonly ns: Ns; readonly name: string; readonly shape: number }
  | { readonly op: 'svc'; readonly ns: Ns; readonly name: string; readonly session?: boolean }
  | { readonly op: 'eps'; readonly ns: Ns; readonly svc: string; readonly addrs: readonly string[] }
  | { readonly op: 'subnet'; readonly name: SubnetName; readonly vpc?: string; readonly namespaces: readonly Ns[] }
  | { readonly op: 'vpc'; readonly name: string }
  /** Delete an object (nothing when it is absent); IP objects are deleted by hand as a user would. */
  | { readonly op: 'delete'; readonly kind: string; readonly ns?: Ns; readonly name: string }
  /** The controller dies now, whatever it is doing (its connections cut), and a new one starts. */
  | { readonly op: 'crash' }
  /** The controller stops cleanly and a new one starts. */
  | { readonly op: 'restart' }
  /** From now, a kind's watch events are delivered twice, held back, dropped (then relisted), or as they come. */
  | { readonly op: 'watch'; readonly kind: WatchedKind; readonly fault: WatchFault }
  /** The API server refuses the controller's next `times` calls of `verb` on `kind` (ServiceUnavailable). */
  | {
      readonly op: 'refuse';
      readonly verb: 'patch' | 'create' | 'delete';
      readonly kind: string;
      readonly times: number;
    }
  /** Let the controller work for a few turns of the event loop, and time pass (retries come due). */
  | { readonly op: 'wait'; readonly turns: number; readonly ms: number };

/** Mostly `default`: pods and policies meet in one namespace more often. */
const ns = fc.oneof(
  { arbitrary: fc.constant('default' as const), weight: 3 },
  fc.constant('a' as const),
  fc.constant('b' as const),
);
const podName = fc.constantFrom(...POD_NAMES);
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

/** Drops keys whose value is undefined, so ops print and compare as they read. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const podOp: fc.Arbitrary<Op> = fc
  .record({
    ns,
    name: podName,
    node: opt(fc.constantFrom(...NODES)),
    app: opt(fc.constantFrom('a', 'b')),
    ip: fc.option(fc.constantFrom(...STATIC_IPS), { nil: undefined, freq: 4 }),
    sts: fc.option(fc.constant(true), { nil: undefined, freq: 3 }),
    host: fc.option(fc.constant(true), { nil: undefined, freq: 8 }),
  })
  .map((r) => compact({ op: 'pod' as const, ...r }));

const deleteOp: fc.Arbitrary<Op> = fc.oneof(
  // Pods most: deleting one is the change with the most consequences (its address, port, IP object, policies).
  {
    arbitrary: fc.record({ ns, name: podName }).map((r) => ({ op: 'delete' as const, kind: 'Pod', ...r })),
    weight: 6,
  },
  fc.constantFrom(...NAMESPACES).map((name) => ({ op: 'delete' as const, kind: 'Namespace', name })),
  fc
    .record({ ns, name: fc.constantFrom('np1', 'np2') })
    .map((r) => ({ op: 'delete' as const, kind: 'NetworkPolicy', ...r })),
  fc.record({ ns, name: fc.constantFrom('web', 'db') }).map((r) => ({ op: 'delete' as const, kind: 'Service', ...r })),
  fc
    .record({ ns, name: fc.constantFrom('web-1', 'db-1') })
    .map((r) => ({ op: 'delete' as const, kind: 'EndpointSlice', ...r })),
  fc.constantFrom('s1', 's2').map((name) => ({ op: 'delete' as const, kind: 'Subnet', name })),
  fc.constantFrom('v1').map((name) => ({ op: 'delete' as const, kind: 'Vpc', name })),
  fc.record({ ns, name: podName }).map((r) => ({ op: 'delete' as const, kind: 'IP', name: `${r.name}.${r.ns}` })),
);

/** One random op, weighted toward pods (the kind that changes most). */
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: podOp, weight: 8 },
  { arbitrary: deleteOp, weight: 7 },
  {
    arbitrary: fc
      .record({ ns, name: podName, node: fc.constantFrom(...NODES) })
      .map((r) => ({ op: 'schedule' as const, ...r })),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        kind: fc.constantFrom('Pod' as const, 'Namespace' as const),
        ns,
        name: podName,
        value: opt(fc.constantFrom('a', 'b', 'x', 'y')),
      })
      .map((r) => compact({ op: 'relabel' as const, ...r, name: r.kind === 'Pod' ? r.name : undefined })),
    weight: 2,
  },
  {
    arbitrary: fc
      .record({ name: ns, team: opt(fc.constantFrom('x', 'y')) })
      .map((r) => compact({ op: 'ns' as const, ...r })),
    weight: 2,
  },
  {
    arbitrary: fc
      .record({ ns, name: fc.constantFrom('np1', 'np2'), shape: fc.integer({ min: 0, max: NETPOL_SHAPES - 1 }) })
      .map((r) => ({ op: 'netpol' as const, ...r })),
    weight: 2,
  },
  {
    arbitrary: fc
      .record({ ns, name: fc.constantFrom('web', 'db'), session: opt(fc.constant(true)) })
      .map((r) => compact({ op: 'svc' as const, ...r })),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        ns,
        svc: fc.constantFrom('web', 'db'),
        addrs: fc.subarray([...ENDPOINTS], { minLength: 0, maxLength: 2 }),
      })
      .map((r) => ({ op: 'eps' as const, ...r })),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({
        name: fc.constantFrom('s1' as const, 's2' as const),
        vpc: opt(fc.constant('v1')),
        namespaces: fc.subarray(['a', 'b'] as Ns[]),
      })
      .map((r) => compact({ op: 'subnet' as const, ...r })),
    weight: 2,
  },
  { arbitrary: fc.constant({ op: 'vpc' as const, name: 'v1' }), weight: 1 },
  { arbitrary: fc.constant({ op: 'crash' as const }), weight: 1 },
  { arbitrary: fc.constant({ op: 'restart' as const }), weight: 1 },
  {
    arbitrary: fc
      .record({
        kind: fc.constantFrom(...WATCHED),
        fault: fc.constantFrom<WatchFault>('dup', 'hold', 'drop', 'ok'),
      })
      .map((r) => ({ op: 'watch' as const, ...r })),
    weight: 2,
  },
  {
    arbitrary: fc
      .record({
        verb: fc.constantFrom('patch' as const, 'create' as const, 'delete' as const),
        kind: fc.constantFrom('Pod', 'IP', 'Subnet'),
        times: fc.integer({ min: 1, max: 3 }),
      })
      .map((r) => ({ op: 'refuse' as const, ...r })),
    weight: 1,
  },
  {
    arbitrary: fc
      .record({ turns: fc.integer({ min: 1, max: 20 }), ms: fc.constantFrom(0, 0, 10, 1_000) })
      .map((r) => ({ op: 'wait' as const, ...r })),
    weight: 3,
  },
);

/** A sequence: the cluster's two nodes exist before it starts (Harness.setUp). */
export const sequenceArb = (maxLength: number): fc.Arbitrary<Op[]> =>
  fc.array(opArb, { minLength: 1, maxLength, size: 'max' });

/** The shrunk sequence, one op a line, as a TypeScript literal to paste into regressions.test.ts. */
export function showOps(ops: readonly Op[]): string {
  return `[\n${ops.map((o) => `  ${JSON.stringify(o)},`).join('\n')}\n]`;
}

// --- the objects the ops make ---

/**
 * The policy shapes: pod selectors (0), a namespace selector reaching other
 * namespaces (1), a named port on ingress (2), a named port on egress to any
 * namespace (3): each a different way pods' changes requeue policies.
 */
export function netpolSpec(shape: number): unknown {
  switch (shape) {
    case 0:
      return {
        podSelector: { matchLabels: { app: 'a' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }],
      };
    case 1:
      return { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'x' } } }] }] };
    case 2:
      return { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ ports: [{ port: 'http' }] }] };
    default:
      return {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [
          { to: [{ namespaceSelector: {}, podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 'http' }] },
        ],
      };
  }
}

export function podObject(o: Extract<Op, { op: 'pod' }>): KubeObject {
  const annotations = o.ip ? { 'ovn.kubernetes.io/ip_address': o.ip } : undefined;
  const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'sts-web', controller: true };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.ns,
      ...(o.app ? { labels: { app: o.app } } : {}),
      ...(annotations ? { annotations } : {}),
      ...(o.sts ? { ownerReferences: [owner] } : {}),
    },
    spec: {
      ...(o.node ? { nodeName: o.node } : {}),
      ...(o.host ? { hostNetwork: true } : {}),
      containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }],
    },
  };
}

/** A Service's cluster IP, fixed by its name and namespace (a re-created Service gets its old one). */
export function clusterIP(ns: string, name: string): string {
  return `10.96.${NAMESPACES.indexOf(ns as Ns) + 1}.${name === 'web' ? 10 : 20}`;
}

export function objectsOf(o: Op): KubeObject | undefined {
  switch (o.op) {
    case 'pod':
      return podObject(o);
    case 'ns':
      return {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: o.name, ...(o.team ? { labels: { team: o.team } } : {}) },
      };
    case 'netpol':
      return {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: o.name, namespace: o.ns },
        spec: netpolSpec(o.shape),
      };
    case 'svc':
      return {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: o.name, namespace: o.ns },
        spec: {
          clusterIP: clusterIP(o.ns, o.name),
          ...(o.session ? { sessionAffinity: 'ClientIP' } : {}),
          ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }],
        },
      };
    case 'eps':
      return {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: `${o.svc}-1`, namespace: o.ns, labels: { 'kubernetes.io/service-name': o.svc } },
        addressType: 'IPv4',
        ports: [{ port: 8080, protocol: 'TCP' }],
        endpoints: o.addrs.map((a) => ({ addresses: [a], conditions: { ready: true } })),
      };
    case 'subnet':
      return {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: o.name },
        spec: {
          cidrBlock: SUBNETS[o.name],
          protocol: 'IPv4',
          ...(o.vpc ? { vpc: o.vpc } : {}),
          namespaces: [...o.namespaces],
        },
      };
    case 'vpc':
      return { apiVersion: 'kubeovn.io/v1', kind: 'Vpc', metadata: { name: o.name }, spec: {} };
    default:
      return undefined;
  }
}
