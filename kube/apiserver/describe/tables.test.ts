import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/types.ts';
import { humanDuration } from './age.ts';
import { createCatalog } from './catalog.ts';
import { jsonPathValues, renderTable } from './tables.ts';
import { subnetCrd } from './testing/crds.ts';

interface Table {
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[]; object?: { kind: string; metadata: unknown } }[];
  metadata: { resourceVersion: string };
}
const now = () => Date.parse('2026-01-01T01:00:00Z');
const created = '2026-01-01T00:55:00Z';
const opts = { wide: false, includeObject: 'None', resourceVersion: '7', now } as const;

describe('renderTable', () => {
  const catalog = createCatalog();

  it('prints pods as kubectl get pods -o wide shows them', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0', namespace: 'prod', creationTimestamp: created },
      spec: { nodeName: 'node-1', containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        podIP: '10.16.0.5',
        podIPs: [{ ip: '10.16.0.5' }, { ip: 'fd00::5' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 1 },
          { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    };
    const t = renderTable(catalog.byPath('', 'v1', 'pods')!, [pod], opts) as Table;
    expect(t.columnDefinitions.map((c) => `${c.name}:${c.priority}`)).toEqual([
      'Name:0',
      'Ready:0',
      'Status:0',
      'Restarts:0',
      'Age:0',
      'IP:1',
      'Node:1',
      'Nominated Node:1',
      'Readiness Gates:1',
    ]);
    expect(t.rows[0]?.cells).toEqual([
      'web-0',
      '1/2',
      'CrashLoopBackOff',
      3,
      '5m',
      '10.16.0.5',
      'node-1',
      '<none>',
      '<none>',
    ]);
    expect(t.metadata.resourceVersion).toBe('7');
    expect(t.rows[0]?.object).toBeUndefined();
    const pending = { ...pod, spec: { containers: [{ name: 'a' }] }, status: { phase: 'Pending' } };
    expect((renderTable(catalog.byPath('', 'v1', 'pods')!, [pending], opts) as Table).rows[0]?.cells).toEqual([
      'web-0',
      '0/1',
      'Pending',
      0,
      '5m',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });

  it('prints nodes, services and namespaces with their own columns', () => {
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
      },
    };
    const nodeRow = (renderTable(catalog.byPath('', 'v1', 'nodes')!, [node], opts) as Table).rows[0]?.cells;
    expect(nodeRow?.slice(0, 6)).toEqual([
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane',
      '<unknown>',
      '',
      '172.18.0.2',
    ]);
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'prod', creationTimestamp: created },
      spec: {
        type: 'NodePort',
        clusterIP: '10.96.0.10',
        selector: { tier: 'a', app: 'web' },
        ports: [
          { port: 80, nodePort: 30080 },
          { port: 53, protocol: 'UDP' },
        ],
      },
    };
    expect((renderTable(catalog.byPath('', 'v1', 'services')!, [svc], opts) as Table).rows[0]?.cells).toEqual([
      'web',
      'NodePort',
      '10.96.0.10',
      '<none>',
      '80:30080/TCP,53/UDP',
      '5m',
      'app=web,tier=a',
    ]);
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'prod', creationTimestamp: created },
    };
    expect((renderTable(catalog.byPath('', 'v1', 'namespaces')!, [ns], opts) as Table).rows[0]?.cells).toEqual([
      'prod',
      'Active',
      '5m',
    ]);
  });

  it("prints a CRD's printer columns after NAME, the generic NAME/AGE otherwise, and the row object as asked", () => {
    catalog.registerCrd(subnetCrd());
    const subnet: KubeObject = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 'ovn-default' },
      spec: { provider: 'ovn', protocol: 'IPv4', cidrBlock: '10.16.0.0/16', default: true },
      status: { v4availableIPs: 65530 },
    };
    const t = renderTable(catalog.byPath('kubeovn.io', 'v1', 'subnets')!, [subnet], {
      ...opts,
      includeObject: 'Metadata',
    }) as Table;
    expect(t.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Provider',
      'Protocol',
      'CIDR',
      'V4avail',
      'Default',
    ]);
    expect(t.rows[0]?.cells).toEqual(['ovn-default', 'ovn', 'IPv4', '10.16.0.0/16', 65530, true]);
    const odd = { ...subnet, spec: { provider: ['a', 'b'], protocol: 4, default: 'yes' }, status: {} };
    const cells = (renderTable(catalog.byPath('kubeovn.io', 'v1', 'subnets')!, [odd], opts) as Table).rows[0]?.cells;
    expect(cells).toEqual(['ovn-default', '["a","b"]', '4', null, null, null]);
    expect(t.rows[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: subnet.metadata,
    });
    const ip: KubeObject = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'IP',
      metadata: { name: 'c', creationTimestamp: created },
    };
    const g = renderTable(createCatalog().byPath('kubeovn.io', 'v1', 'ips')!, [ip], {
      ...opts,
      includeObject: 'Object',
    }) as Table;
    expect(g.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(g.rows[0]).toEqual({ cells: ['c', '5m'], object: ip });
  });
});

describe('the other built-in printers', () => {
  const catalog = createCatalog();
  const row = (plural: string, group: string, o: Record<string, unknown>): unknown[] => {
    const r = catalog.all().find((x) => x.plural === plural && x.group === group)!;
    const object = { metadata: { name: 'x', creationTimestamp: created }, ...o } as KubeObject;
    return (renderTable(r, [object], opts) as Table).rows[0]!.cells;
  };
  const template = {
    spec: {
      containers: [
        { name: 'a', image: 'i1' },
        { name: 'b', image: 'i2' },
      ],
    },
  };
  const selector = {
    matchLabels: { app: 'web' },
    matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
  };

  it('prints workloads with their replica counts, containers, images and selectors', () => {
    expect(
      row('deployments', 'apps', {
        spec: { replicas: 3, selector, template },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      }),
    ).toEqual(['x', '2/3', 3, 2, '5m', 'a,b', 'i1,i2', 'app=web,tier in (a,b)']);
    const ds = {
      spec: { selector, template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux' } } } },
      status: { desiredNumberScheduled: 2, numberReady: 1 },
    };
    expect(row('daemonsets', 'apps', ds).slice(0, 8)).toEqual(['x', 2, 0, 1, 0, 0, 'kubernetes.io/os=linux', '5m']);
    const job = {
      spec: { template },
      status: { succeeded: 1, startTime: '2026-01-01T00:56:00Z', completionTime: '2026-01-01T00:58:30Z' },
    };
    expect(row('jobs', 'batch', job).slice(0, 4)).toEqual(['x', '1/1', '2m30s', '5m']);
  });

  it('prints policies, slices, bindings, config and events', () => {
    expect(row('networkpolicies', 'networking.k8s.io', { spec: { podSelector: {} } })).toEqual(['x', '<none>', '5m']);
    const slice = {
      addressType: 'IPv4',
      ports: [{ port: 80 }],
      endpoints: ['1', '2', '3', '4'].map((i) => ({ addresses: [`10.0.0.${i}`] })),
    };
    expect(row('endpointslices', 'discovery.k8s.io', slice)).toEqual([
      'x',
      'IPv4',
      '80',
      '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...',
      '5m',
    ]);
    const binding = {
      roleRef: { kind: 'ClusterRole', name: 'kovn' },
      subjects: [{ kind: 'ServiceAccount', name: 'kovn', namespace: 'kube-system' }],
    };
    expect(row('clusterrolebindings', 'rbac.authorization.k8s.io', binding)).toEqual([
      'x',
      'ClusterRole/kovn',
      '5m',
      '',
      '',
      'kube-system/kovn',
    ]);
    expect(row('configmaps', '', { data: { a: '1', b: '2' } })).toEqual(['x', 2, '5m']);
    expect(row('customresourcedefinitions', 'apiextensions.k8s.io', {})).toEqual(['x', created]);
    const event = {
      type: 'Warning',
      reason: 'AcquireAddressFailed',
      message: 'no address ',
      involvedObject: { kind: 'Pod', name: 'web-0' },
      lastTimestamp: created,
      count: 3,
    };
    expect(row('events', '', event).slice(0, 5)).toEqual([
      '5m',
      'Warning',
      'AcquireAddressFailed',
      'pod/web-0',
      'no address',
    ]);
  });
});

describe('humanDuration and jsonPathValues', () => {
  it('prints durations as Kubernetes does', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-5 * s, '<invalid>'],
      [119 * s, '119s'],
      [200 * s, '3m20s'],
      [600 * s, '10m'],
      [3 * 3600 * s + 5 * 60 * s, '3h5m'],
      [30 * 3600 * s, '30h'],
      [3 * 86400 * s + 4 * 3600 * s, '3d4h'],
      [400 * 86400 * s, '400d'],
      [(3 * 365 + 10) * 86400 * s, '3y10d'],
      [9 * 365 * 86400 * s, '9y'],
    ];
    for (const [ms, text] of cases) expect(humanDuration(ms)).toBe(text);
  });

  it('follows fields, indexes and wildcards', () => {
    const o = { spec: { ports: [{ port: 80 }, { port: 443 }] } };
    expect(jsonPathValues(o, '.spec.ports[1].port')).toEqual([443]);
    expect(jsonPathValues(o, '{.spec.ports[*].port}')).toEqual([80, 443]);
    expect(jsonPathValues(o, '.spec.missing')).toEqual([]);
  });
});
