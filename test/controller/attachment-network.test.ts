/**
 * Multus attachment networks through the whole controller
 * (scenarios/attachment-network.yaml on the simulator): the second port and
 * annotations Kube-OVN writes, the probe that flips without the attachment,
 * and a pod naming a missing NetworkAttachmentDefinition failing whole.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { Topology } from '../../model/topology/index.ts';
import { expandObjects } from '../../scenarios/expand.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'attachment-network.yaml');

async function run(edit: (o: KubeObject) => KubeObject | undefined = (o) => o) {
  const s = loadScenario(FILE);
  const objects = s.objects.flatMap((o) => edit(o.object as unknown as KubeObject) ?? []);
  const expanded = await expandObjects(objects as unknown as Record<string, unknown>[], {});
  const world = new SimWorld();
  let topology: Topology | undefined;
  const r = await runScenario(s, {
    world,
    expanded,
    unresolvable: 'deny',
    onConverged: async (_step, ix) => {
      topology = ix.topology;
    },
  });
  await world.close();
  return { ...r, topology: topology!, cluster: expanded.cluster };
}

const withNetworks = (value: string | undefined) => (o: KubeObject) => {
  if (o.kind !== 'Pod' || o.metadata.name !== 'app') return o;
  const annotations = { ...o.metadata.annotations };
  if (value === undefined) delete annotations['k8s.v1.cni.cncf.io/networks'];
  else annotations['k8s.v1.cni.cncf.io/networks'] = value;
  return { ...o, metadata: { ...o.metadata, annotations } };
};

const verdict = (r: Awaited<ReturnType<typeof run>>, from: string, to: string) =>
  r.results.find((x) => x.from === from && x.to === to)?.allowed;

describe('attachment networks (scenarios/attachment-network.yaml)', () => {
  it("writes the attachment's port and the provider's annotations", async () => {
    const r = await run();
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    const port = r.topology.switchPort.get('app.default.attachnet.default.ovn');
    expect(port).toMatchObject({ switch: 'attach-subnet', type: '' });
    expect(port?.addresses[0]).toMatch(/ 172\.17\.0\.2$/);
    const app = (await r.cluster.get({ kind: 'Pod', namespace: 'default', name: 'app' }))!;
    const a = app.metadata.annotations ?? {};
    expect(a['attachnet.default.ovn.kubernetes.io/ip_address']).toBe('172.17.0.2');
    expect(a['attachnet.default.ovn.kubernetes.io/logical_switch']).toBe('attach-subnet');
    expect(a['attachnet.default.ovn.kubernetes.io/logical_router']).toBe('att-vpc');
    expect(a['attachnet.default.ovn.kubernetes.io/gateway']).toBe('172.17.0.1');
    expect(a['attachnet.default.ovn.kubernetes.io/allocated']).toBe('true');
    // The primary interface is untouched.
    expect(a['ovn.kubernetes.io/logical_switch']).toBe('ovn-default');
  });

  it('without the networks annotation, no interface holds the attachment address', async () => {
    const r = await run(withNetworks(undefined));
    expect(verdict(r, 'backend/db', '172.17.0.2')).toBe(false);
    expect(r.topology.switchPort.get('app.default.attachnet.default.ovn')).toBeUndefined();
  });

  it('a pod naming a NetworkAttachmentDefinition that does not exist gets no port at all, and is reported', async () => {
    const r = await run(withNetworks('default/missing'));
    expect(r.topology.switchPort.get('app.default')).toBeUndefined();
    expect(verdict(r, 'default/app', 'default/plain')).toBe(false);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({
        code: 'AcquireAddressFailed',
        kind: 'Pod',
        name: 'app',
        field: 'metadata.annotations[k8s.v1.cni.cncf.io/networks]',
      }),
    );
  });
});
