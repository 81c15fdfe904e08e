import { describe, expect, it } from 'vitest';
import { arpRequest, udpPacket } from '../../model/packet/build.ts';
import { TopoBuilder } from '../../model/topology/index.ts';
import { bindingsOf, isAnnouncement, isGarp, needsSecondSync, oneNetworkPerLocalnet } from './oracle.ts';

const ln = (name: string, sw: string, network: string) => ({
  name,
  switch: sw,
  type: 'localnet' as const,
  addresses: ['unknown'],
  options: { network_name: network },
});

describe('datapath oracle, pure parts', () => {
  const t = new TopoBuilder()
    .switch('ext0')
    .switch('ext1')
    .vif('host0', 'ext0', '0a:58:ac:00:00:32', '172.20.0.50')
    .port(ln('ln-ext0', 'ext0', 'physnet1'))
    .port(ln('ln-ext1', 'ext1', 'physnet1'))
    .build();

  it('gives every localnet port a network of its own, once (a second pass changes nothing)', () => {
    const apart = oneNetworkPerLocalnet(t);
    expect(
      [...apart.switchPort.values()].filter((p) => p.type === 'localnet').map((p) => p.options.network_name),
    ).toEqual(['physnet1-ln-ext0', 'physnet1-ln-ext1']);
    expect(oneNetworkPerLocalnet(apart)).toBe(apart);
    // The input is left alone.
    expect(t.switchPort.get('ln-ext0')?.options.network_name).toBe('physnet1');
  });

  it('binds VIFs and localnet ports, nothing else', () => {
    expect(bindingsOf(oneNetworkPerLocalnet(t))).toEqual([
      { kind: 'vif', port: 'host0' },
      { kind: 'localnet', port: 'ln-ext0', network: 'physnet1-ln-ext0' },
      { kind: 'localnet', port: 'ln-ext1', network: 'physnet1-ln-ext1' },
    ]);
  });

  it('a gratuitous ARP asks for its own address', () => {
    expect(isGarp(arpRequest({ sha: '0a:00:00:00:ff:01', spa: '172.20.0.1', tpa: '172.20.0.1' }))).toBe(true);
    expect(isGarp(arpRequest({ sha: '0a:00:00:00:ff:01', spa: '172.20.0.1', tpa: '172.20.0.50' }))).toBe(false);
  });

  it("a GARP with the sender's own MAC is an announcement unless the sender sent that GARP", () => {
    // Seen in CI (seed 20231103 case 242): host0 on a localnet switch sent UDP; pinctrl's periodic
    // GARP for host0's 172.20.0.50 (host0's MAC) left through the localnet port meanwhile.
    const garp = arpRequest({ sha: '0a:58:ac:00:00:32', spa: '172.20.0.50', tpa: '172.20.0.50' });
    const udp = udpPacket({
      ethSrc: '0a:58:ac:00:00:32',
      ethDst: '0a:00:00:00:ff:01',
      src: '172.20.0.50',
      dst: '172.20.0.101',
      sport: 1039,
      dport: 443,
    });
    expect(isAnnouncement(garp, udp)).toBe(true);
    expect(isAnnouncement(garp, garp)).toBe(false);
    const other = arpRequest({ sha: '0a:00:00:00:ff:01', spa: '172.20.0.1', tpa: '172.20.0.1' });
    expect(isAnnouncement(other, garp)).toBe(true);
    expect(isAnnouncement(arpRequest({ sha: '0a:00:00:00:ff:01', spa: '172.20.0.1', tpa: '172.20.0.9' }), udp)).toBe(
      false,
    );
  });

  it('waits for the chassis twice only where a gateway port or a localnet port is loaded', () => {
    expect(needsSecondSync(t)).toBe(true);
    const pods = new TopoBuilder().switch('ls0').vif('pod0', 'ls0', '0a:58:0a:00:00:10', '10.16.0.10');
    expect(needsSecondSync(pods.build())).toBe(false);
    const routed = pods.router('lr0').connect('lr0', 'ls0', '0a:00:00:00:00:01', ['10.16.0.1/24']);
    expect(needsSecondSync(routed.build())).toBe(false);
    const gw = routed.switch('ext0').connect('lr0', 'ext0', '0a:00:00:00:ff:01', ['172.20.0.1/24'], {
      gatewayChassis: 'hv1',
    });
    expect(needsSecondSync(gw.build())).toBe(true);
  });
});
