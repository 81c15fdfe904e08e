/**
 * The controller end to end on the in-memory cluster and the simulator
 * backend: Kube-OVN's defaults at start-up, pods allocated, annotated and
 * recorded as IP objects, Subnet status and conditions, bad input reported
 * where its user looks (conditions, events) without touching anything else,
 * policies following relabelled pods, and a restart that writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { printMatch } from '../../model/match/index.ts';
import { plan } from '../../model/topology/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { Backend } from '../../backends/backend.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { HANDLERS } from '../../controller/handlers/index.ts';
import type { Handler } from '../../controller/handlers/handler.ts';
import { realClock } from '../../kube/runtime/clock.ts';

const pod = (
  name: string,
  ns = 'default',
  extra: { labels?: Record<string, string>; annotations?: Record<string, string>; node?: string } = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: ns,
    ...(extra.labels ? { labels: extra.labels } : {}),
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
  },
  spec: {
    nodeName: extra.node ?? 'node-a',
    containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }],
  },
});
const ns = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
const subnet = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name },
  spec,
});

const running: Controller[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

async function boot(cluster: MemoryCluster, backend: SimBackend) {
  const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1) });
  running.push(c);
  const report = await c.start();
  await settled(c);
  return { c, report };
}

const ann = (o: KubeObject | undefined) => o?.metadata.annotations ?? {};
const get = (cluster: MemoryCluster, kind: string, name: string, namespace?: string) =>
  cluster.get({ kind, name, ...(namespace ? { namespace } : {}) });

describe('the controller on the in-memory cluster', () => {
  it("creates Kube-OVN's defaults: the ovn-cluster Vpc with its status, ovn-default and join Subnets, their NB rows", async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await boot(cluster, backend);
    const vpc = await get(cluster, 'Vpc', 'ovn-cluster');
    expect(vpc?.status).toMatchObject({
      default: true,
      router: 'ovn-cluster',
      tcpLoadBalancer: 'cluster-tcp-loadbalancer',
      subnets: ['join', 'ovn-default'],
    });
    const def = await get(cluster, 'Subnet', 'ovn-default');
    expect(
      (def!.status as { conditions: { type: string; status: string }[] }).conditions.map((c) => [c.type, c.status]),
    ).toEqual([
      ['Ready', 'True'],
      ['Validated', 'True'],
    ]);
    expect(def?.metadata.finalizers).toEqual(['kubeovn.io/kube-ovn-controller']);
    const t = await backend.read();
    expect(t.router.has('ovn-cluster')).toBe(true);
    expect(t.routerPort.get('ovn-cluster-ovn-default')?.networks).toEqual(['10.16.0.1/16']);
    expect(t.routerPort.get('ovn-cluster-join')?.networks).toEqual(['100.64.0.1/16']);
    expect(t.staticRoute.size).toBe(1);
    expect([...t.loadBalancer.keys()].sort()).toContain('cluster-tcp-loadbalancer');
    expect(t.switch.get('ovn-default')?.loadBalancers).toHaveLength(6);
  });

  it('allocates pods in order, writes their annotations and IP objects, counts them in the Subnet status', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(ns('default'));
    for (const n of ['a', 'b', 'c']) await cluster.create(pod(n));
    await cluster.create({ ...pod('host'), spec: { hostNetwork: true, nodeName: 'node-a', containers: [] } });
    await boot(cluster, backend);
    const a = ann(await get(cluster, 'Pod', 'a', 'default'));
    expect(a).toMatchObject({
      'ovn.kubernetes.io/allocated': 'true',
      'ovn.kubernetes.io/ip_address': '10.16.0.2',
      'ovn.kubernetes.io/cidr': '10.16.0.0/16',
      'ovn.kubernetes.io/gateway': '10.16.0.1',
      'ovn.kubernetes.io/logical_switch': 'ovn-default',
      'ovn.kubernetes.io/logical_router': 'ovn-cluster',
      'ovn.kubernetes.io/pod_nic_type': 'veth-pair',
      'ovn.kubernetes.io/routed': 'true',
    });
    expect(ann(await get(cluster, 'Pod', 'c', 'default'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.4');
    expect(ann(await get(cluster, 'Pod', 'host', 'default'))['ovn.kubernetes.io/allocated']).toBeUndefined();
    const ip = await get(cluster, 'IP', 'a.default');
    expect(ip?.spec).toMatchObject({
      podName: 'a',
      namespace: 'default',
      subnet: 'ovn-default',
      ipAddress: '10.16.0.2',
      macAddress: a['ovn.kubernetes.io/mac_address'],
    });
    const t = await backend.read();
    expect(t.switchPort.get('a.default')?.addresses).toEqual([`${a['ovn.kubernetes.io/mac_address']} 10.16.0.2`]);
    expect(t.portGroup.get('node.node.a')?.ports).toEqual(['a.default', 'b.default', 'c.default']);
    expect(ann(await get(cluster, 'Node', 'node-a'))).toMatchObject({
      'ovn.kubernetes.io/ip_address': '100.64.0.2',
      'ovn.kubernetes.io/logical_switch': 'join',
    });
    expect((await get(cluster, 'Subnet', 'ovn-default'))?.status).toMatchObject({ v4usingIPs: 3 });
  });

  it('a namespace bound to its own Subnet; deleting a pod releases its address, port and IP object', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(ns('prod'));
    await cluster.create(subnet('prod', { cidrBlock: '10.17.0.0/16', namespaces: ['prod'] }));
    await cluster.create(pod('db', 'prod'));
    const { c } = await boot(cluster, backend);
    expect(ann(await get(cluster, 'Pod', 'db', 'prod'))).toMatchObject({
      'ovn.kubernetes.io/ip_address': '10.17.0.2',
      'ovn.kubernetes.io/logical_switch': 'prod',
    });
    expect(ann(await get(cluster, 'Namespace', 'prod'))['ovn.kubernetes.io/logical_switch']).toBe('prod');
    await cluster.delete({ kind: 'Pod', namespace: 'prod', name: 'db' });
    await settled(c);
    expect((await backend.read()).switchPort.has('db.prod')).toBe(false);
    expect(await get(cluster, 'IP', 'db.prod')).toBeUndefined();
    expect(c.ipam.lookup('db.prod')).toBeUndefined();
    expect((await get(cluster, 'Subnet', 'prod'))?.status).toMatchObject({ v4usingIPs: 0 });
  });

  it('a static IP that is taken: an event and no annotation, and the pod gets it once the holder is gone', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(pod('first', 'default', { annotations: { 'ovn.kubernetes.io/ip_address': '10.16.0.50' } }));
    const { c } = await boot(cluster, backend);
    await cluster.create(pod('second', 'default', { annotations: { 'ovn.kubernetes.io/ip_address': '10.16.0.50' } }));
    await settled(c);
    expect(ann(await get(cluster, 'Pod', 'second', 'default'))['ovn.kubernetes.io/allocated']).toBeUndefined();
    const events = cluster.events({ kind: 'Pod', namespace: 'default', name: 'second' });
    expect(events.map((e) => (e as { reason?: string }).reason)).toContain('AcquireAddressFailed');
    expect(c.delayed().Pod).toBe(1);
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'first' });
    for (
      let i = 0;
      i < 200 && ann(await get(cluster, 'Pod', 'second', 'default'))['ovn.kubernetes.io/allocated'] !== 'true';
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    expect(ann(await get(cluster, 'Pod', 'second', 'default'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.50');
  });

  it('bad Subnets get Validated=False naming the field, and nothing else changes', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(pod('a'));
    const { c } = await boot(cluster, backend);
    const before = await backend.read();
    await cluster.create(subnet('overlap', { cidrBlock: '10.16.128.0/24' }));
    await cluster.create(subnet('badcidr', { cidrBlock: '10.300.0.0/16' }));
    await cluster.create(subnet('svc', { cidrBlock: '10.96.0.0/16' }));
    await settled(c);
    const cond = async (name: string) =>
      (
        (await get(cluster, 'Subnet', name))!.status as {
          conditions: { type: string; status: string; message: string }[];
        }
      ).conditions.find((x) => x.type === 'Validated');
    expect(await cond('overlap')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('overlaps subnet "ovn-default"'),
    });
    expect(await cond('badcidr')).toMatchObject({ status: 'False', message: expect.stringContaining('cidrBlock') });
    expect(await cond('svc')).toMatchObject({ status: 'False', message: expect.stringContaining('service CIDR') });
    expect(plan(before, await backend.read())).toEqual([]);
    expect(ann(await get(cluster, 'Pod', 'a', 'default'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.2');
  });

  it('a NetworkPolicy follows a relabelled pod', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(pod('web', 'default', { labels: { app: 'web' } }));
    await cluster.create(pod('db', 'default', { labels: { app: 'db' } }));
    await cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'db-allow', namespace: 'default' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
      },
    });
    const { c } = await boot(cluster, backend);
    let t = await backend.read();
    expect(t.portGroup.get('db.allow.default')?.ports).toEqual(['db.default']);
    expect(t.addressSet.get('db.allow.default.ingress.allow.IPv4.0')?.addresses).toEqual(['10.16.0.2']);
    await cluster.patch({ kind: 'Pod', namespace: 'default', name: 'web' }, { metadata: { labels: { app: 'other' } } });
    await settled(c);
    t = await backend.read();
    expect(t.addressSet.get('db.allow.default.ingress.allow.IPv4.0')?.addresses).toEqual([]);
    expect([...t.acl.values()].filter((a) => a.attachTo.name === 'node.node.a').length).toBeGreaterThan(0);
  });

  it('a restart with nothing changed writes nothing to NB and nothing to the cluster', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    for (let i = 0; i < 20; i++)
      await cluster.create(pod(`p${i}`, i % 2 ? 'default' : 'team', { labels: { i: String(i % 3) } }));
    await cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'team' },
      spec: { podSelector: { matchLabels: { i: '1' } }, ingress: [{ from: [{ namespaceSelector: {} }] }] },
    });
    const first = await boot(cluster, backend);
    await first.c.stop();
    const writes = cluster.stats().writes;
    const second = await boot(cluster, backend);
    expect(second.report.operations).toBe(0);
    expect(second.report.disagreements).toEqual([]);
    expect(cluster.stats().writes).toBe(writes);
  });

  it('a restart with policies that reach every namespace reconciles each pod once, in the start-up pass', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    for (let i = 0; i < 5; i++) await cluster.create(pod(`p${i}`));
    for (const name of ['wide-a', 'wide-b', 'wide-c'])
      await cluster.create({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name, namespace: 'default' },
        spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }] }] },
      });
    const first = await boot(cluster, backend);
    await first.c.stop();
    const second = await boot(cluster, backend);
    expect(second.report.operations).toBe(0);
    // Each policy's list event asks for every pod; the pass has reconciled them all, so no queue runs them again.
    expect(second.c.processed().Pod ?? 0).toBe(0);
    // A policy added once it runs still requeues every pod.
    await cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'wide-d', namespace: 'default' },
      spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }] }] },
    });
    await settled(second.c);
    expect(second.c.processed().Pod).toBe(5);
  });

  it('a change that arrives while the controller starts is handled once it runs, not lost', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const inner = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(pod('early'));
    // A pod created while the start-up flush is being applied: after every object was reconciled.
    let created = false;
    const backend: Backend = {
      kind: 'sim',
      read: () => inner.read(),
      readRows: (keys) => inner.readRows(keys),
      watch: (listener) => inner.watch(listener),
      close: () => inner.close(),
      apply: async (p, o) => {
        if (!created) {
          created = true;
          await cluster.create(pod('late'));
        }
        return inner.apply(p, o);
      },
    };
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1) });
    running.push(c);
    await c.start();
    await settled(c);
    expect(created).toBe(true);
    expect(ann(await get(cluster, 'Pod', 'early', 'default'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.2');
    expect(ann(await get(cluster, 'Pod', 'late', 'default'))['ovn.kubernetes.io/ip_address']).toBe('10.16.0.3');
    expect((await inner.read()).switchPort.has('late.default')).toBe(true);
  });

  it('requeues a Node for what its handler reads (addresses, labels), not for a status heartbeat', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create({
      ...node('node-a'),
      status: {
        addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    });
    const { c } = await boot(cluster, backend);
    const runs = () => c.processed().Node ?? 0;
    const before = runs();
    const status = (conditions: unknown, address = '172.18.0.2') =>
      cluster.patch(
        { kind: 'Node', name: 'node-a' },
        { status: { addresses: [{ type: 'InternalIP', address }], conditions } },
        { subresource: 'status' },
      );
    await status([{ type: 'Ready', status: 'True', lastHeartbeatTime: '1' }]);
    await settled(c);
    expect(runs()).toBe(before);
    await status([{ type: 'Ready', status: 'True', lastHeartbeatTime: '2' }], '172.18.0.3');
    await settled(c);
    expect(runs()).toBe(before + 1);
    await cluster.patch({ kind: 'Node', name: 'node-a' }, { metadata: { labels: { zone: 'b' } } });
    await settled(c);
    expect(runs()).toBe(before + 2);
  });

  it('runs a key again after the delay its handler asks for (RequeueAfter), and settled() waits for it', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    const runs: string[] = [];
    let asked = false;
    // The IPPool handler (it writes nothing back to its object, so no event of its own runs it again),
    // asking once to see `later` again in 30 ms.
    const handlers = HANDLERS.map(
      (h): Handler =>
        h.kind !== 'IPPool'
          ? h
          : {
              ...h,
              reconcile: async (ctx, key) => {
                await h.reconcile(ctx, key);
                if (key.name !== 'later') return;
                runs.push(key.name);
                if (asked) return;
                asked = true;
                return { requeueAfterMs: 30 };
              },
            },
    );
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1), handlers });
    running.push(c);
    await c.start();
    await settled(c);
    await cluster.create({
      apiVersion: 'kubeovn.io/v1',
      kind: 'IPPool',
      metadata: { name: 'later' },
      spec: { subnet: 'ovn-default', ips: ['10.16.0.100..10.16.0.110'] },
    });
    await settled(c);
    expect(runs).toEqual(['later', 'later']);
    expect(c.queued()).toBe(0);
  });

  it('recomputes a policy with a named port when a pod that resolves it comes or goes (gathered, then queued)', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'web-http', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 'http' }] }] },
    });
    const { c } = await boot(cluster, backend);
    const matches = async () =>
      [...(await backend.read()).acl.values()]
        .filter((a) => a.attachTo.name === 'web.http.default')
        .map((a) => printMatch(a.match))
        .join('\n');
    expect(await matches()).not.toContain('8080');
    // pod() declares `http` as 8080.
    await cluster.create(pod('web', 'default', { labels: { app: 'web' } }));
    await settled(c);
    expect(await matches()).toContain('8080');
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'web' });
    await settled(c);
    expect(await matches()).not.toContain('8080');
  });

  it("puts back an IP object's spec changed by hand when its pod is next reconciled, and leaves an equal one alone", async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create(node('node-a'));
    await cluster.create(pod('web'));
    const { c } = await boot(cluster, backend);
    const ip = async () => (await get(cluster, 'IP', 'web.default'))?.spec as Record<string, unknown>;
    const mac = (await ip()).macAddress;
    const rv = (await get(cluster, 'IP', 'web.default'))?.metadata.resourceVersion;
    await cluster.patch({ kind: 'Pod', namespace: 'default', name: 'web' }, { metadata: { labels: { v: '1' } } });
    await settled(c);
    expect((await get(cluster, 'IP', 'web.default'))?.metadata.resourceVersion).toBe(rv);
    await cluster.patch({ kind: 'IP', name: 'web.default' }, { spec: { macAddress: '00:00:00:00:00:01' } });
    await cluster.patch({ kind: 'Pod', namespace: 'default', name: 'web' }, { metadata: { labels: { v: '2' } } });
    await settled(c);
    expect((await ip()).macAddress).toBe(mac);
  });
});
