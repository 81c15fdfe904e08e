import { describe, expect, it } from 'vitest';
import { encodePodNetwork } from '../../kube/annotations.ts';
import { podPortSpec } from './pod.ts';

const written = (provider?: string) =>
  encodePodNetwork(
    {
      ips: ['10.16.0.5', 'fd00:10:16::5'],
      mac: '0a:58:0a:10:00:05',
      cidrs: ['10.16.0.0/16', 'fd00:10:16::/64'],
      gateways: ['10.16.0.1', 'fd00:10:16::1'],
      logicalSwitch: 'ovn-default',
      logicalRouter: 'ovn-cluster',
      podNicType: 'veth-pair',
      routed: true,
    },
    provider,
  );

describe('podPortSpec: the controller annotations read by the node agent', () => {
  it("gives the port the controller's logical port name as iface-id, and the CNI's external_ids", () => {
    expect(
      podPortSpec({ pod: 'web-0', namespace: 'shop', hostNic: 'abc_h', netns: '/var/run/netns/x' }, written()),
    ).toEqual({
      ok: true,
      value: {
        name: 'abc_h',
        ifaceId: 'web-0.shop',
        externalIds: {
          vendor: 'kube-ovn',
          pod_name: 'web-0',
          pod_namespace: 'shop',
          pod_netns: '/var/run/netns/x',
          ip: '10.16.0.5,fd00:10:16::5',
        },
      },
    });
  });

  it("an attachment's port reads its provider's keys and names its port with the provider", () => {
    const spec = podPortSpec(
      { pod: 'web-0', namespace: 'shop', provider: 'net1.shop', hostNic: 'n1' },
      written('net1.shop'),
    );
    expect(spec).toMatchObject({ ok: true, value: { ifaceId: 'web-0.shop.net1.shop' } });
    expect(
      podPortSpec({ pod: 'web-0', namespace: 'shop', provider: 'net1.shop', hostNic: 'n1' }, written()),
    ).toMatchObject({
      ok: false,
      issue: { code: 'not-allocated' },
    });
  });

  it('no port for a pod the controller has not allocated yet', () => {
    expect(podPortSpec({ pod: 'p', namespace: 'd', hostNic: 'h' }, {})).toMatchObject({
      ok: false,
      issue: { code: 'not-allocated', path: 'metadata.annotations[ovn.kubernetes.io/allocated]' },
    });
  });
});
