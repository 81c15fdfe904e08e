/**
 * Identities are values (STYLE 12): a pod whose name holds dots (`web.v2`
 * in `prod`, IPAM owner and port `web.v2.prod`) is reconciled under its own
 * key whatever reaches it: its own events, a Subnet change that drops its
 * lease, a restart that reads its port back from NB. Namespaces cannot hold
 * dots (DNS-1123 labels), so `<pod>.<ns>` is never ambiguous, but nothing
 * here depends on that: the names are only ever formatted, never parsed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import { formatKey, type KubeObject } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';

const running: Controller[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

const pod = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { nodeName: 'n1', containers: [] },
});

function boot(cluster: MemoryCluster, backend: SimBackend, seed = 1) {
  const failures: string[] = [];
  const c = new Controller({
    cluster,
    backend,
    clock: realClock,
    random: seededRandomBytes(seed),
    onError: (kind, key) => failures.push(`${kind} ${key === undefined ? key : formatKey(key)}`),
  });
  running.push(c);
  return { c, failures };
}

const A = (k: string) => `ovn.kubernetes.io/${k}`;

describe('a pod whose name holds dots', () => {
  it('web.v2 in prod: address, port, annotations; a Subnet change that drops its lease requeues it; deleting it releases all', async () => {
    const cluster = new MemoryCluster();
    const backend = new SimBackend();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
    await cluster.create({
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 'prod' },
      spec: { cidrBlock: '10.66.0.0/24', namespaces: ['prod'] },
    });
    await cluster.create(pod('web.v2', 'prod'));
    // More dots than the namespace has: the owner key `a.b.c.prod`.
    await cluster.create(pod('a.b.c', 'prod'));
    const { c, failures } = boot(cluster, backend);
    await c.start();
    await settled(c);

    const get = async (name: string) => (await cluster.get({ kind: 'Pod', namespace: 'prod', name }))!;
    const web = (await get('web.v2')).metadata.annotations ?? {};
    expect(web).toMatchObject({
      [A('allocated')]: 'true',
      [A('ip_address')]: '10.66.0.2',
      [A('logical_switch')]: 'prod',
    });
    expect((await get('a.b.c')).metadata.annotations?.[A('ip_address')]).toBe('10.66.0.3');
    let ports = (await backend.read()).switchPort;
    expect(ports.get('web.v2.prod')?.addresses).toEqual([`${web[A('mac_address')]} 10.66.0.2`]);
    expect(ports.get('web.v2.prod')?.externalIds.pod).toBe('prod/web.v2');
    expect((await cluster.get({ kind: 'IP', name: 'web.v2.prod' }))?.spec).toMatchObject({
      podName: 'web.v2',
      namespace: 'prod',
      ipAddress: '10.66.0.2',
    });

    // A new CIDR drops both leases. Each pod is reconciled under its own key: its annotation asks for its
    // old address (Kube-OVN reads `ip_address` as a request), which the subnet no longer has, so it is
    // refused on the pod, and NB keeps no port with an address the IPAM released.
    await cluster.patch({ kind: 'Subnet', name: 'prod' }, { spec: { cidrBlock: '10.66.1.0/24' } });
    await settled(c);
    expect(c.ipam.lookup('web.v2.prod')).toBeUndefined();
    const refused = (await cluster.list('Event')).items
      .filter((e) => (e as { reason?: string }).reason === 'AcquireAddressFailed')
      .map((e) => (e as unknown as { involvedObject: { namespace: string; name: string } }).involvedObject);
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ namespace: 'prod', name: 'web.v2' }),
        expect.objectContaining({ namespace: 'prod', name: 'a.b.c' }),
      ]),
    );
    expect(failures).toContain('Pod prod/web.v2');
    expect(failures).not.toContain('Pod v2/web');
    ports = (await backend.read()).switchPort;
    expect(ports.has('web.v2.prod')).toBe(false);
    expect(ports.has('a.b.c.prod')).toBe(false);

    // Its owner drops the stale request: the pod gets an address of the new CIDR, its port and annotations.
    await cluster.patch(
      { kind: 'Pod', namespace: 'prod', name: 'web.v2' },
      { metadata: { annotations: { [A('ip_address')]: null, [A('mac_address')]: null, [A('allocated')]: null } } },
    );
    await settled(c);
    const again = (await get('web.v2')).metadata.annotations ?? {};
    expect(again[A('ip_address')]).toBe('10.66.1.2');
    ports = (await backend.read()).switchPort;
    expect(ports.get('web.v2.prod')?.addresses).toEqual([`${again[A('mac_address')]} 10.66.1.2`]);

    await cluster.delete({ kind: 'Pod', namespace: 'prod', name: 'web.v2' });
    await settled(c);
    expect(c.ipam.lookup('web.v2.prod')).toBeUndefined();
    expect((await backend.read()).switchPort.has('web.v2.prod')).toBe(false);
    expect(await cluster.get({ kind: 'IP', name: 'web.v2.prod' })).toBeUndefined();
    expect((await cluster.get({ kind: 'Subnet', name: 'prod' }))?.status).toMatchObject({ v4usingIPs: 0 });
  });

  it('a restart reads web.v2 back from its IP object, annotations and NB port, and writes nothing', async () => {
    const cluster = new MemoryCluster();
    const backend = new SimBackend();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await cluster.create(pod('web.v2', 'prod'));
    const first = boot(cluster, backend).c;
    await first.start();
    await settled(first);
    await first.stop();
    // The NB port alone still holds the address for its pod (IP object and annotation gone).
    await cluster.delete({ kind: 'IP', name: 'web.v2.prod' });
    await cluster.patch(
      { kind: 'Pod', namespace: 'prod', name: 'web.v2' },
      { metadata: { annotations: { [A('allocated')]: null } } },
    );
    const { c, failures } = boot(cluster, backend, 2);
    const report = await c.start();
    await settled(c);
    expect(report.restored).toBe(2);
    expect(report.operations).toBe(0);
    expect(c.ipam.lookup('web.v2.prod')?.subnet).toBe('ovn-default');
    expect((await cluster.get({ kind: 'IP', name: 'web.v2.prod' }))?.spec).toMatchObject({ ipAddress: '10.16.0.2' });
    expect(failures).toEqual([]);
  });
});
