/** The daemon's pure parts: names, the bandwidth mapping, the pod link and CNI result, the request decoder. */
import { describe, expect, it } from 'vitest';
import { hostNicName } from './names.ts';
import { cniResultOf, podLinkOf } from './pod-config.ts';
import { bandwidthOf } from './qos.ts';
import { decodeRequest } from './server.ts';

describe('hostNicName: Kube-OVN generateNicName', () => {
  it('eth0 is <id[0:12]>_h; another interface keeps its name inside 15 bytes', () => {
    const id = '3f2a9c0d81e4b7aa5c0ffee';
    expect(hostNicName(id, 'eth0')).toBe('3f2a9c0d81e4_h');
    expect(hostNicName(id, 'net1')).toBe('3f2a9c0d_net1_h');
    expect(hostNicName(id, 'averyverylongname').length).toBeLessThanOrEqual(15);
  });
});

describe('bandwidthOf: the annotations as Kube-OVN maps them (egress_rate → policing, ingress_rate → htb)', () => {
  const k = (s: string) => `ovn.kubernetes.io/${s}`;
  it('no annotation: no limit', () => {
    expect(bandwidthOf({})).toEqual({ ok: true, value: { policingRateKbit: 0, policingBurstKbit: 0 } });
  });
  it('rates in Mbit/s: kbit policing with 80 % burst, bit/s htb with rate/10 bytes burst', () => {
    expect(bandwidthOf({ [k('egress_rate')]: '3', [k('ingress_rate')]: '20' })).toEqual({
      ok: true,
      value: {
        policingRateKbit: 3000,
        policingBurstKbit: 2400,
        htb: { maxRateBps: 20_000_000, burstBytes: 2_000_000 },
      },
    });
  });
  it('bursts in Mbit: ×1000 kbit for policing, ×125000 bytes for htb; an unparsable burst falls back to the default', () => {
    expect(
      bandwidthOf({
        [k('egress_rate')]: '3',
        [k('egress_burst')]: '1',
        [k('ingress_rate')]: '2',
        [k('ingress_burst')]: '0',
      }),
    ).toEqual({
      ok: true,
      value: { policingRateKbit: 3000, policingBurstKbit: 1000, htb: { maxRateBps: 2_000_000, burstBytes: 0 } },
    });
    expect(bandwidthOf({ [k('egress_rate')]: '3', [k('egress_burst')]: 'x' })).toMatchObject({
      value: { policingBurstKbit: 2400 },
    });
  });
  it("an attachment's provider reads its own keys", () => {
    expect(bandwidthOf({ 'net1.ns.kubernetes.io/egress_rate': '1' }, 'net1.ns')).toMatchObject({
      value: { policingRateKbit: 1000 },
    });
  });
  it('a rate that is not a whole number of Mbit/s is refused with its path', () => {
    expect(bandwidthOf({ [k('ingress_rate')]: '-1' })).toEqual({
      ok: false,
      issue: {
        path: 'metadata.annotations[ovn.kubernetes.io/ingress_rate]',
        message: 'ovn.kubernetes.io/ingress_rate: "-1" is not a whole number of Mbit/s up to 9007199254',
      },
    });
    expect(bandwidthOf({ [k('egress_rate')]: '1.5' })).toMatchObject({ ok: false });
  });
});

describe('podLinkOf and cniResultOf', () => {
  const net = {
    ips: ['10.16.0.5', 'fd00:10:16::5'],
    mac: '0a:58:0a:10:00:05',
    cidrs: ['10.16.0.0/16', 'fd00:10:16::/64'],
    gateways: ['10.16.0.1', 'fd00:10:16::1'],
    routed: true,
  };
  const target = { hostIfName: 'abc_h', netns: '/run/netns/p', ifName: 'eth0', mtu: 1400 };
  it('dual stack: an address with its prefix and a default route per family', () => {
    const l = podLinkOf(net, target, 'ovn');
    expect(l).toEqual({
      ok: true,
      value: {
        ...target,
        mac: net.mac,
        addresses: ['10.16.0.5/16', 'fd00:10:16::5/64'],
        routes: [
          { dst: 'default', gw: '10.16.0.1' },
          { dst: 'default', gw: 'fd00:10:16::1' },
        ],
      },
    });
    if (!l.ok) return;
    expect(cniResultOf(l.value, '1.1.0')).toEqual({
      cniVersion: '1.1.0',
      interfaces: [{ name: 'eth0', mac: net.mac, mtu: 1400, sandbox: '/run/netns/p' }],
      ips: [
        { address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 },
        { address: 'fd00:10:16::5/64', gateway: 'fd00:10:16::1', interface: 0 },
      ],
      routes: [
        { dst: '0.0.0.0/0', gw: '10.16.0.1' },
        { dst: '::/0', gw: 'fd00:10:16::1' },
      ],
    });
  });
  it("Kube-OVN's routes annotation adds routes (an empty dst is the default; entries that do not parse are left out)", () => {
    const routes = JSON.stringify([
      { dst: '192.168.0.0/16', gw: '10.16.0.254' },
      { dst: 'nonsense', gw: '10.16.0.254' },
      { dst: '172.16.0.0/12' },
      { gw: '10.16.0.253' },
    ]);
    const l = podLinkOf(net, target, 'ovn', { 'ovn.kubernetes.io/routes': routes });
    expect(l.ok && l.value.routes).toEqual([
      { dst: 'default', gw: '10.16.0.1' },
      { dst: 'default', gw: 'fd00:10:16::1' },
      { dst: '192.168.0.0/16', gw: '10.16.0.254' },
      { dst: '172.16.0.0/12' },
      { dst: 'default', gw: '10.16.0.253' },
    ]);
    expect(podLinkOf(net, target, 'ovn', { 'ovn.kubernetes.io/routes': '{"dst":1}' })).toEqual({
      ok: false,
      issue: {
        path: 'metadata.annotations[ovn.kubernetes.io/routes]',
        message: 'ovn.kubernetes.io/routes: not a JSON list of {dst, gw}',
      },
    });
  });

  it('the default route goes on eth0 only, unless default_route says otherwise', () => {
    const net1 = { ...target, ifName: 'net1' };
    expect(podLinkOf(net, net1, 'ovn')).toMatchObject({ ok: true, value: { routes: [] } });
    expect(podLinkOf(net, net1, 'ovn', { 'ovn.kubernetes.io/default_route': 'true' })).toMatchObject({
      value: {
        routes: [
          { dst: 'default', gw: '10.16.0.1' },
          { dst: 'default', gw: 'fd00:10:16::1' },
        ],
      },
    });
    expect(podLinkOf(net, target, 'ovn', { 'ovn.kubernetes.io/default_route': 'false' })).toMatchObject({
      value: { routes: [] },
    });
  });

  it('an address without a CIDR of its family is an issue on the cidr annotation', () => {
    expect(podLinkOf({ ...net, cidrs: ['10.16.0.0/16'] }, target, 'ovn')).toEqual({
      ok: false,
      issue: {
        path: 'metadata.annotations[ovn.kubernetes.io/cidr]',
        message: 'ovn.kubernetes.io/cidr: no IPv6 CIDR for address fd00:10:16::5',
      },
    });
  });
});

describe('decodeRequest', () => {
  it('fills the optional strings and refuses wrong types', () => {
    expect(decodeRequest('{"command":"STATUS"}')).toMatchObject({
      ok: true,
      req: { command: 'STATUS', cniVersion: '1.0.0', containerId: '', provider: 'ovn' },
    });
    expect(decodeRequest('{"command":"ADD","netns":5}')).toEqual({ ok: false, msg: 'request.netns: not a string' });
    expect(decodeRequest('[]')).toEqual({ ok: false, msg: 'request: not a JSON object' });
  });
});
