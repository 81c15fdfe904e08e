import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../test/fc.ts';
import {
  annotationKey,
  decodeAddressRequest,
  decodeNodeNetwork,
  decodePodNetwork,
  encodeNodeNetwork,
  encodePodNetwork,
  type PodNetwork,
} from './annotations.ts';

const net: PodNetwork = {
  ips: ['10.16.0.5', 'fd00:10:16::5'],
  mac: '0a:58:0a:10:00:05',
  cidrs: ['10.16.0.0/16', 'fd00:10:16::/64'],
  gateways: ['10.16.0.1', 'fd00:10:16::1'],
  logicalSwitch: 'ovn-default',
  logicalRouter: 'ovn-cluster',
  podNicType: 'veth-pair',
  routed: true,
};

describe('pod annotation contract', () => {
  it('writes the keys Kube-OVN writes, under the provider prefix', () => {
    expect(encodePodNetwork(net)).toEqual({
      'ovn.kubernetes.io/allocated': 'true',
      'ovn.kubernetes.io/ip_address': '10.16.0.5,fd00:10:16::5',
      'ovn.kubernetes.io/mac_address': '0a:58:0a:10:00:05',
      'ovn.kubernetes.io/cidr': '10.16.0.0/16,fd00:10:16::/64',
      'ovn.kubernetes.io/gateway': '10.16.0.1,fd00:10:16::1',
      'ovn.kubernetes.io/logical_switch': 'ovn-default',
      'ovn.kubernetes.io/logical_router': 'ovn-cluster',
      'ovn.kubernetes.io/pod_nic_type': 'veth-pair',
      'ovn.kubernetes.io/routed': 'true',
    });
    const attachment = encodePodNetwork({ ...net, routed: false }, 'macvlan.default');
    expect(Object.keys(attachment).every((k) => k.startsWith('macvlan.default.kubernetes.io/'))).toBe(true);
    expect(attachment).not.toHaveProperty('macvlan.default.kubernetes.io/routed');
    expect(annotationKey('net1.prod.ovn', 'ip_address')).toBe('net1.prod.ovn.kubernetes.io/ip_address');
  });

  it('decodes what it encodes (any addresses, any provider)', () => {
    const ip = fc.oneof(fc.ipV4(), fc.ipV6());
    const mac = fc
      .array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 })
      .map((b) => b.map((x) => x.toString(16).padStart(2, '0')).join(':'));
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(
        fc.record({
          ips: fc.array(ip, { minLength: 1, maxLength: 2 }),
          mac,
          cidrs: fc.array(fc.constant('10.0.0.0/8'), { maxLength: 2 }),
          gateways: fc.array(ip, { maxLength: 2 }),
          logicalSwitch: name,
          logicalRouter: name,
          podNicType: fc.constantFrom('veth-pair', 'internal-port'),
          routed: fc.boolean(),
        }),
        fc.constantFrom('ovn', 'macvlan.default', 'net1.prod.ovn'),
        (n, provider) => {
          expect(decodePodNetwork(encodePodNetwork(n, provider), provider)).toEqual({ ok: true, value: n });
        },
      ),
      fcParams(200),
    );
  });

  it('reads back what an older controller or a user left: only allocated and ip_address are required', () => {
    const d = decodePodNetwork({ 'ovn.kubernetes.io/allocated': 'true', 'ovn.kubernetes.io/ip_address': '10.16.0.9' });
    expect(d).toEqual({ ok: true, value: { ips: ['10.16.0.9'], cidrs: [], gateways: [], routed: false } });
  });

  it('says why annotations do not decode, naming the key', () => {
    const A = (k: string) => `ovn.kubernetes.io/${k}`;
    expect(decodePodNetwork({})).toMatchObject({
      ok: false,
      issue: { code: 'not-allocated', path: 'metadata.annotations[ovn.kubernetes.io/allocated]' },
    });
    expect(decodePodNetwork({ [A('allocated')]: 'true' })).toMatchObject({
      ok: false,
      issue: { code: 'missing', path: 'metadata.annotations[ovn.kubernetes.io/ip_address]' },
    });
    expect(decodePodNetwork({ [A('allocated')]: 'true', [A('ip_address')]: '10.16.0.5,10.16.0' })).toMatchObject({
      ok: false,
      issue: { code: 'invalid', message: 'ovn.kubernetes.io/ip_address: "10.16.0" is not an IP address' },
    });
    expect(
      decodePodNetwork({ [A('allocated')]: 'true', [A('ip_address')]: '10.16.0.5', [A('mac_address')]: 'zz' }),
    ).toMatchObject({
      ok: false,
      issue: { code: 'invalid', path: 'metadata.annotations[ovn.kubernetes.io/mac_address]' },
    });
    // Another provider's keys are not this provider's.
    expect(decodePodNetwork(encodePodNetwork(net), 'macvlan.default')).toMatchObject({ ok: false });
  });

  it("node annotations: the join port's keys, decoded as a pod's", () => {
    const written = encodeNodeNetwork({
      ips: ['100.64.0.2'],
      mac: '0a:58:64:40:00:02',
      cidrs: ['100.64.0.0/16'],
      gateways: ['100.64.0.1'],
      logicalSwitch: 'join',
      portName: 'node-kube-ovn-worker',
    });
    expect(written['ovn.kubernetes.io/port_name']).toBe('node-kube-ovn-worker');
    expect(decodeNodeNetwork(written)).toMatchObject({
      ok: true,
      value: { ips: ['100.64.0.2'], mac: '0a:58:64:40:00:02', logicalSwitch: 'join' },
    });
  });

  it('address requests: the user-set keys, as written', () => {
    expect(decodeAddressRequest({})).toEqual({ portSecurity: false });
    expect(
      decodeAddressRequest(
        {
          'net1.prod.kubernetes.io/ip_address': '192.168.1.5',
          'net1.prod.kubernetes.io/mac_address': '0a:00:00:00:00:01',
          'net1.prod.kubernetes.io/ip_pool': 'pool-a',
          'net1.prod.kubernetes.io/logical_switch': 'net1',
          'net1.prod.kubernetes.io/port_security': 'true',
          'ovn.kubernetes.io/ip_address': '10.16.0.5',
        },
        'net1.prod',
      ),
    ).toEqual({
      ips: '192.168.1.5',
      mac: '0a:00:00:00:00:01',
      ipPool: 'pool-a',
      logicalSwitch: 'net1',
      portSecurity: true,
    });
  });
});
