/**
 * The pod annotation ovn.kubernetes.io/ip_family (Kube-OVN's podNetRequestedIPFamily,
 * validateRequestedIPFamilyForSubnet and ValidatePodNetwork): one family on a
 * dual-stack subnet; refused on a subnet without it or with another value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { realClock } from '../../kube/runtime/clock.ts';

const running: Controller[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop();
});

const pod = (name: string, annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'mixed', annotations },
  spec: { nodeName: 'n1', containers: [] },
});

async function setup(subnetCidr: string, pods: readonly KubeObject[]) {
  const cluster = new MemoryCluster({ now: () => 0 });
  const backend = new SimBackend();
  await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  await cluster.create({
    apiVersion: 'kubeovn.io/v1',
    kind: 'Subnet',
    metadata: { name: 'mixed' },
    spec: { cidrBlock: subnetCidr, namespaces: ['mixed'] },
  });
  for (const o of pods) await cluster.create(o);
  const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(5) });
  running.push(c);
  await c.start();
  await settled(c);
  return { cluster, backend };
}

const annotations = async (cluster: MemoryCluster, name: string) =>
  (await cluster.get({ kind: 'Pod', namespace: 'mixed', name }))?.metadata.annotations ?? {};
const events = async (cluster: MemoryCluster, name: string) =>
  (await cluster.list('Event', { namespace: 'mixed' })).items
    .map((e) => e as unknown as { involvedObject: { name: string }; reason: string; message: string })
    .filter((e) => e.involvedObject.name === name)
    .map((e) => `${e.reason}: ${e.message}`);

describe('ovn.kubernetes.io/ip_family', () => {
  it('one family on a dual-stack subnet: the annotation, the port and the counters say so', async () => {
    const { cluster, backend } = await setup('10.71.0.0/24,fd00:10:71::/120', [
      pod('v6only', { 'ovn.kubernetes.io/ip_family': 'ipv6' }),
      pod('v4only', { 'ovn.kubernetes.io/ip_family': 'ipv4' }),
      pod('both', {}),
    ]);
    expect(await annotations(cluster, 'v6only')).toMatchObject({
      'ovn.kubernetes.io/ip_address': 'fd00:10:71::2',
      // The subnet's whole cidrBlock, as Kube-OVN writes it (pkg/controller/pod.go: subnet.Spec.CIDRBlock).
      'ovn.kubernetes.io/cidr': '10.71.0.0/24,fd00:10:71::/120',
    });
    expect((await annotations(cluster, 'v4only'))['ovn.kubernetes.io/ip_address']).toBe('10.71.0.2');
    expect((await annotations(cluster, 'both'))['ovn.kubernetes.io/ip_address']).toBe('10.71.0.3,fd00:10:71::3');
    const lsp = (await backend.read()).switchPort.get('v6only.mixed');
    expect(lsp?.addresses).toEqual([expect.stringMatching(/^[0-9a-f:]{17} fd00:10:71::2$/)]);
    expect((await cluster.get({ kind: 'Subnet', name: 'mixed' }))?.status).toMatchObject({
      v4usingIPs: 2,
      v6usingIPs: 2,
    });
  });

  it('a family the subnet lacks, a value other than ipv4/ipv6, an ip_address of the other family: refused', async () => {
    const { cluster, backend } = await setup('10.72.0.0/24', [
      pod('wants6', { 'ovn.kubernetes.io/ip_family': 'ipv6' }),
      pod('upper', { 'ovn.kubernetes.io/ip_family': 'IPv4' }),
      pod('mismatch', { 'ovn.kubernetes.io/ip_family': 'ipv4', 'ovn.kubernetes.io/ip_address': 'fd00::5' }),
    ]);
    const t = await backend.read();
    for (const name of ['wants6', 'upper', 'mismatch']) expect(t.switchPort.has(`${name}.mixed`)).toBe(false);
    expect(await events(cluster, 'wants6')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AcquireAddressFailed: requested ip family IPv6 does not match/)]),
    );
    expect(await events(cluster, 'upper')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ValidatePodNetworkFailed: .*ip_family: "IPv4" is not ipv4 or ipv6/),
      ]),
    );
    expect(await events(cluster, 'mismatch')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AcquireAddressFailed: fd00::5 does not match ip family IPv4/)]),
    );
  });
});
