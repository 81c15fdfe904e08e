import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/cluster/types.ts';
import { expandObjects, MAX_PODS, suffix } from './expand.ts';
import { endpointSlicesFor } from './slices.ts';

const template = (labels: Record<string, string>, ports: unknown[] = []) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'x', ports }] },
});

describe('expanding a scenario as a cluster would', () => {
  const docs = [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { replicas: 2, template: template({ app: 'web' }) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop' },
      spec: { replicas: 2, template: template({ app: 'db' }) },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { template: template({ app: 'agent' }) },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo' }, spec: { containers: [] } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'fixed', namespace: 'shop' },
      spec: { clusterIP: '10.96.0.1', ports: [{ port: 80 }] },
    },
  ];

  it('names pods as the workload controllers do, deterministically', async () => {
    const a = await expandObjects(docs, { nodes: 3 });
    const b = await expandObjects(docs, { nodes: 3 });
    const pods = a.objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name);
    expect(pods).toEqual(b.objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name));
    const hash = suffix('shop/web/template', 10);
    expect(pods.filter((p) => p.startsWith('web-'))).toHaveLength(2);
    for (const p of pods.filter((x) => x.startsWith('web-')))
      expect(p).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect(pods.filter((p) => p.startsWith('db-'))).toEqual(['db-0', 'db-1']);
    expect(pods.filter((p) => p.startsWith('agent-'))).toHaveLength(3);
    expect(pods).toContain('solo');
    const db0 = a.objects.find((o) => o.metadata.name === 'db-0')!;
    expect(db0.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'StatefulSet', name: 'db' });
    expect(db0.metadata.labels).toMatchObject({ app: 'db', 'statefulset.kubernetes.io/pod-name': 'db-0' });
  });

  it('nodes kovn-node-1..N, pods round-robin in document order, DaemonSet pods one per node', async () => {
    const a = await expandObjects(docs, { nodes: 3 });
    expect(a.workloads.schedulerNodes().map((n) => n.name)).toEqual(['kovn-node-1', 'kovn-node-2', 'kovn-node-3']);
    const placed = a.objects
      .filter((o) => o.kind === 'Pod')
      .map((o) => [o.metadata.name, (o.spec as { nodeName: string }).nodeName]);
    const agents = placed.filter(([n]) => n!.startsWith('agent-')).map(([, node]) => node);
    expect(agents.sort()).toEqual(['kovn-node-1', 'kovn-node-2', 'kovn-node-3']);
    const others = placed.filter(([n]) => !n!.startsWith('agent-')).map(([, node]) => node);
    expect(others).toEqual(['kovn-node-1', 'kovn-node-2', 'kovn-node-3', 'kovn-node-1', 'kovn-node-2']);
    // A node a pod names is a node; then no generated ones.
    const named = await expandObjects([{ kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'worker-9' } }], {});
    expect(named.workloads.schedulerNodes().map((n) => n.name)).toEqual(['worker-9']);
  });

  it('namespaces default, kube-system and every one used; cluster IPs lowest free, given ones kept', async () => {
    const a = await expandObjects(docs, {});
    expect(
      a.objects
        .filter((o) => o.kind === 'Namespace')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['default', 'kube-system', 'shop']);
    expect(a.objects.findIndex((o) => o.kind === 'Namespace')).toBe(0);
    const ips = a.objects.filter((o) => o.kind === 'Service').map((o) => (o.spec as { clusterIP: string }).clusterIP);
    expect(ips).toEqual(['10.96.0.2', '10.96.0.1']);
  });

  it('endpoint slices: ready pods with addresses, named target ports resolved per pod, one slice per port mapping', () => {
    // What the controller writes: `allocated` with the address (a requested address alone is no endpoint yet).
    const pod = (name: string, ip: string, port: number, ready = true, allocated = true): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'shop',
        labels: { app: 'web' },
        annotations: {
          'ovn.kubernetes.io/ip_address': ip,
          ...(allocated ? { 'ovn.kubernetes.io/allocated': 'true' } : {}),
        },
      },
      spec: { containers: [{ ports: [{ name: 'http', containerPort: port }] }] },
      status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
    });
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { clusterIP: '10.96.0.5', selector: { app: 'web' }, ports: [{ name: 'h', port: 80, targetPort: 'http' }] },
    };
    const slices = endpointSlicesFor(svc, [
      pod('a', '10.16.0.2', 8080),
      pod('b', '10.16.0.3', 9090),
      pod('c', '10.16.0.4', 8080, false),
      pod('d', '10.16.0.5', 8080, true, false),
    ]);
    expect(
      slices.map((s) => [
        s.ports,
        (s.endpoints as { addresses: string[]; conditions: { ready: boolean } }[]).map((e) => [
          e.addresses[0],
          e.conditions.ready,
        ]),
      ]),
    ).toEqual([
      [
        [{ name: 'h', port: 8080, protocol: 'TCP' }],
        [
          ['10.16.0.2', true],
          ['10.16.0.4', false],
        ],
      ],
      [[{ name: 'h', port: 9090, protocol: 'TCP' }], [['10.16.0.3', true]]],
    ]);
    expect(slices[0]!.metadata.labels).toMatchObject({ 'kubernetes.io/service-name': 'web' });
  });
});

describe('workload counts as Kubernetes validates them', () => {
  const deploy = (replicas: unknown) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } },
  });
  it.each([[-1], [1.5], [Number.POSITIVE_INFINITY], ['3']])(
    'replicas %s is refused naming the field',
    async (replicas) => {
      await expect(expandObjects([deploy(replicas)], {})).rejects.toThrow(
        expect.objectContaining({ name: 'ExpandError', code: 'invalid-count', field: 'spec.replicas' }),
      );
    },
  );
  it('replicas whose name hashes collide are each made once, under the next free name', async () => {
    // `db`'s ReplicaSet's pod suffixes 0..2103 hold one collision (27^5 names): a cluster never holds two pods of one name.
    const db = { ...deploy(2104), metadata: { name: 'db', namespace: 'default' } };
    const names = (await expandObjects([db], {})).objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name);
    expect(names).toHaveLength(2104);
    expect(new Set(names).size).toBe(2104);
  });
  it('more pods than the limit is refused with the number, before any is made', async () => {
    await expect(expandObjects([deploy(MAX_PODS + 1)], {})).rejects.toThrow(
      expect.objectContaining({ code: 'too-many-pods', message: expect.stringContaining(String(MAX_PODS)) }),
    );
    expect((await expandObjects([deploy(0)], {})).objects.filter((o) => o.kind === 'Pod')).toEqual([]);
  });
});

describe('a dump holds workloads and what they made', () => {
  const tpl = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
  const owner = (kind: string, name: string, uid?: string) => ({
    apiVersion: 'apps/v1',
    kind,
    name,
    controller: true,
    ...(uid ? { uid } : {}),
  });
  const pods = async (docs: Record<string, unknown>[]) =>
    (await expandObjects(docs, {})).objects
      .filter((o) => o.kind === 'Pod')
      .map((o) => o.metadata.name)
      .sort();
  it('references by kind and name (no uids) count as well, within the namespace', async () => {
    const docs = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, template: tpl } },
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-1', ownerReferences: [owner('Deployment', 'web')] },
        spec: { replicas: 2, template: tpl },
      },
    ];
    // The Deployment's ReplicaSet is in the dump: only the ReplicaSet makes pods (its own two).
    expect(await pods(docs)).toHaveLength(2);
    expect((await pods(docs)).every((n) => n.startsWith('web-1-'))).toBe(true);
    // The same reference from another namespace controls nothing here.
    const elsewhere = [docs[0]!, { ...docs[1]!, metadata: { ...docs[1]!.metadata, namespace: 'other' } }];
    expect(await pods(elsewhere)).toHaveLength(4);
  });
  it('a uid decides when both sides have one', async () => {
    const docs = [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-1', uid: 'rs-1' },
        spec: { replicas: 3, template: tpl },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web-1-aaaaa', ownerReferences: [owner('ReplicaSet', 'web-1', 'rs-OLD')] },
        spec: tpl.spec,
      },
    ];
    // The pod belongs to an earlier ReplicaSet of that name: this one still makes its three.
    expect(await pods(docs)).toHaveLength(4);
    docs[1]!.metadata.ownerReferences = [owner('ReplicaSet', 'web-1', 'rs-1')];
    expect(await pods(docs)).toEqual(['web-1-aaaaa']);
  });
});
