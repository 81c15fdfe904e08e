/**
 * Fail closed (docs/architecture.md): a Subnet accepted and then refused (a
 * typo in spec.vpc naming a Vpc that does not exist) keeps its switch, its
 * pods' ports and leases, and is reported (ValidateLogicalSwitchFailed), as
 * Kube-OVN returns the error and leaves the logical switch as it was. Its
 * delete still releases everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';

const running: Controller[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'prod' },
  spec: { nodeName: 'n1', containers: [] },
});

describe('a Subnet accepted, then refused', () => {
  it('spec.vpc changed to a missing Vpc: switch, ports and leases kept, ValidateLogicalSwitchFailed reported', async () => {
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
    await cluster.create(pod('a'));
    await cluster.create(pod('b'));
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1) });
    running.push(c);
    await c.start();
    await settled(c);
    const before = await backend.read();
    expect(before.switch.has('prod')).toBe(true);
    expect(before.switchPort.has('a.prod')).toBe(true);
    const leases = [c.ipam.lookup('a.prod'), c.ipam.lookup('b.prod')];
    const annotations = async () =>
      (await cluster.get({ kind: 'Pod', namespace: 'prod', name: 'a' }))?.metadata.annotations ?? {};
    const annotated = await annotations();
    expect(annotated['ovn.kubernetes.io/logical_router']).toBe('ovn-cluster');
    expect(leases.every((l) => l?.subnet === 'prod')).toBe(true);

    await cluster.patch({ kind: 'Subnet', name: 'prod' }, { spec: { vpc: 'typo' } });
    await settled(c);
    // A pod of it reconciled again (a label changed) keeps its port as it was.
    await cluster.patch({ kind: 'Pod', namespace: 'prod', name: 'a' }, { metadata: { labels: { app: 'x' } } });
    await settled(c);
    const after = await backend.read();
    expect([...after.switch]).toEqual([...before.switch]);
    expect([...after.switchPort]).toEqual([...before.switchPort]);
    expect([...after.routerPort]).toEqual([...before.routerPort]);
    // Its annotations too: it is still on the VPC the subnet was accepted with.
    expect(await annotations()).toEqual(annotated);
    expect([c.ipam.lookup('a.prod'), c.ipam.lookup('b.prod')]).toEqual(leases);
    expect(c.diagnostics.list()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'ValidateLogicalSwitchFailed',
          kind: 'Subnet',
          name: 'prod',
          field: 'spec.vpc',
        }),
      ]),
    );
    const events = (await cluster.list('Event')).items.map((e) => (e as { reason?: string }).reason);
    expect(events).toContain('ValidateLogicalSwitchFailed');
    const status = (await cluster.get({ kind: 'Subnet', name: 'prod' }))?.status as {
      conditions?: { type: string; status: string }[];
    };
    expect(status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Validated', status: 'False' })]),
    );

    // Its delete releases everything (the pods go first: Kube-OVN keeps a subnet whose addresses are in use).
    await cluster.delete({ kind: 'Pod', namespace: 'prod', name: 'a' });
    await cluster.delete({ kind: 'Pod', namespace: 'prod', name: 'b' });
    await cluster.delete({ kind: 'Subnet', name: 'prod' });
    await settled(c);
    const gone = await backend.read();
    expect(gone.switch.has('prod')).toBe(false);
    expect(gone.switchPort.has('a.prod')).toBe(false);
    expect(c.ipam.subnet('prod')).toBeUndefined();
    expect(c.ipam.lookup('a.prod')).toBeUndefined();
  });
});
