/**
 * Kube-OVN features end to end on the in-memory cluster and the simulator:
 * custom VPCs (own router, overlapping CIDRs allowed across VPCs, static
 * routes), StatefulSet pods keeping their address across re-creation,
 * IPPools bound to namespaces, Services with ClientIP affinity on the session
 * load balancers, private subnets, the Subnet finalizer.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { settled } from '../../controller/settle.ts';
import { controllerOnSim } from './on-sim.ts';

const start = controllerOnSim();
const setup = (objects: readonly KubeObject[]) =>
  start([{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, ...objects]);

const pod = (name: string, ns: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, ...extra },
  spec: { nodeName: 'n1', containers: [] },
});
const ipOf = async (cluster: MemoryCluster, ns: string, name: string) =>
  (await cluster.get({ kind: 'Pod', namespace: ns, name }))?.metadata.annotations?.['ovn.kubernetes.io/ip_address'];

describe('controller features', () => {
  it('a custom VPC: its own router and load balancers, a subnet overlapping one of the default VPC, static routes', async () => {
    const { cluster, backend } = await setup([
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Vpc',
        metadata: { name: 'tenant' },
        spec: { staticRoutes: [{ cidr: '0.0.0.0/0', nextHopIP: '10.16.0.254' }] },
      },
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: 't1' },
        spec: { vpc: 'tenant', cidrBlock: '10.16.0.0/24', namespaces: ['t'] },
      },
      pod('a', 't'),
    ]);
    expect(await ipOf(cluster, 't', 'a')).toBe('10.16.0.2');
    const t = await backend.read();
    expect(t.routerPort.get('tenant-t1')?.router).toBe('tenant');
    expect(t.switch.get('t1')?.loadBalancers).toContain('vpc-tenant-tcp-load');
    expect(
      [...t.staticRoute.values()].filter((r) => r.router === 'tenant').map((r) => [r.ipPrefix, r.nexthop]),
    ).toEqual([['0.0.0.0/0', '10.16.0.254']]);
    const vpc = await cluster.get({ kind: 'Vpc', name: 'tenant' });
    expect(vpc?.status).toMatchObject({
      default: false,
      router: 'tenant',
      subnets: ['t1'],
      tcpLoadBalancer: 'vpc-tenant-tcp-load',
    });
    expect((await cluster.get({ kind: 'Pod', namespace: 't', name: 'a' }))?.metadata.annotations).toMatchObject({
      'ovn.kubernetes.io/logical_router': 'tenant',
      'ovn.kubernetes.io/logical_switch': 't1',
    });
  });

  it('a StatefulSet pod gets its address back when re-created; a plain pod releases it', async () => {
    const sts = {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u1', controller: true }],
    };
    const { cluster, c } = await setup([pod('db-0', 'default', sts), pod('web', 'default')]);
    const before = await ipOf(cluster, 'default', 'db-0');
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'db-0' });
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: 'web' });
    await settled(c);
    expect(c.ipam.lookup('db-0.default')).toBeDefined();
    expect(c.ipam.lookup('web.default')).toBeUndefined();
    expect((await cluster.get({ kind: 'IP', name: 'db-0.default' }))?.spec).toMatchObject({ podType: 'StatefulSet' });
    await cluster.create(pod('other', 'default'));
    await cluster.create(pod('db-0', 'default', sts));
    await settled(c);
    expect(await ipOf(cluster, 'default', 'db-0')).toBe(before);
    expect(await ipOf(cluster, 'default', 'other')).not.toBe(before);
  });

  it("an IPPool bound to a namespace gives that namespace's pods its addresses", async () => {
    const { cluster } = await setup([
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'IPPool',
        metadata: { name: 'pool' },
        spec: { subnet: 'ovn-default', ips: ['10.16.9.10..10.16.9.12'], namespaces: ['pooled'] },
      },
      pod('a', 'pooled'),
      pod('b', 'other'),
    ]);
    expect(await ipOf(cluster, 'pooled', 'a')).toBe('10.16.9.10');
    expect(await ipOf(cluster, 'other', 'b')).toBe('10.16.0.2');
  });

  it('a Service with ClientIP affinity goes on the session load balancer, with its ready endpoints', async () => {
    const { backend } = await setup([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'default' },
        spec: { clusterIP: '10.96.0.50', sessionAffinity: 'ClientIP', ports: [{ port: 80, protocol: 'TCP' }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 's-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 's' } },
        addressType: 'IPv4',
        ports: [{ port: 8080 }],
        endpoints: [
          { addresses: ['10.16.0.7'], conditions: { ready: true } },
          { addresses: ['10.16.0.8'], conditions: { ready: false } },
        ],
      },
    ]);
    const t = await backend.read();
    expect(t.loadBalancer.get('cluster-tcp-session-loadbalancer')?.vips).toEqual({ '10.96.0.50:80': '10.16.0.7:8080' });
    expect(t.loadBalancer.get('cluster-tcp-session-loadbalancer')?.options).toMatchObject({
      affinity_timeout: '10800',
    });
    expect(t.loadBalancer.get('cluster-tcp-loadbalancer')?.vips).toEqual({});
  });

  it('a private Subnet gets its drop and allow ACLs', async () => {
    const { backend } = await setup([
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: 'priv' },
        spec: { cidrBlock: '10.20.0.0/16', private: true, allowSubnets: ['10.16.0.0/16'] },
      },
    ]);
    const acls = [...(await backend.read()).acl.values()].filter((a) => a.attachTo.name === 'priv');
    expect(acls.map((a) => [a.priority, a.action]).sort()).toEqual([
      [1000, 'drop'],
      [1001, 'allow-related'],
      [1001, 'allow-related'],
      [3000, 'allow-related'],
    ]);
  });

  it('a Subnet in use stays while its pods hold addresses; it goes with its rows once they are gone', async () => {
    const { cluster, backend, c } = await setup([
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: 's1' },
        spec: { cidrBlock: '10.30.0.0/24', namespaces: ['x'] },
      },
      pod('a', 'x'),
    ]);
    await cluster.delete({ kind: 'Subnet', name: 's1' });
    await settled(c);
    const held = await cluster.get({ kind: 'Subnet', name: 's1' });
    expect(held?.metadata.deletionTimestamp).toBeDefined();
    expect((await backend.read()).switch.has('s1')).toBe(true);
    expect(cluster.events({ kind: 'Subnet', name: 's1' }).map((e) => (e as { reason?: string }).reason)).toContain(
      'SubnetInUse',
    );
    await cluster.delete({ kind: 'Pod', namespace: 'x', name: 'a' });
    await settled(c);
    expect(await cluster.get({ kind: 'Subnet', name: 's1' })).toBeUndefined();
    expect((await backend.read()).switch.has('s1')).toBe(false);
  });

  it('a row two objects would both write is an event on the one that lost it, not a silent overwrite', async () => {
    // Subnet x (default VPC) and Subnet x-ovn (VPC cluster) both name their switch's router port x-ovn-cluster.
    const { cluster, backend } = await setup([
      { apiVersion: 'kubeovn.io/v1', kind: 'Subnet', metadata: { name: 'x' }, spec: { cidrBlock: '10.40.0.0/24' } },
      { apiVersion: 'kubeovn.io/v1', kind: 'Vpc', metadata: { name: 'cluster' }, spec: {} },
      {
        apiVersion: 'kubeovn.io/v1',
        kind: 'Subnet',
        metadata: { name: 'x-ovn' },
        spec: { vpc: 'cluster', cidrBlock: '10.41.0.0/24' },
      },
    ]);
    const port = (await backend.read()).switchPort.get('x-ovn-cluster');
    expect(port?.switch).toBe('x');
    const events = cluster.events({ kind: 'Subnet', name: 'x-ovn' }).map((e) => (e as { reason?: string }).reason);
    expect(events).toContain('ConflictingRow');
  });
});
