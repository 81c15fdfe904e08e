import { describe, expect, it } from 'vitest';
import { formatIPv4 } from '../../model/addr/index.ts';
import { icmpEcho, tcpPacket } from '../../model/packet/index.ts';
import { iptablesArgs, type NatGatewayRules, natRules } from './iptables.ts';
import { fromLan, fromOutside, type NatAppliance } from './nat-gateway.ts';

const RULES: NatGatewayRules = {
  eips: [
    { name: 'e1', ip: '172.18.0.10' },
    { name: 'e2', ip: '172.18.0.11' },
  ],
  fips: [{ name: 'f', eip: '172.18.0.11', internalIp: '10.0.1.20' }],
  snats: [
    { name: 'wide', eip: '172.18.0.10', internalCIDR: '10.0.0.0/16' },
    { name: 'narrow', eip: '172.18.0.11', internalCIDR: '10.0.2.0/24' },
  ],
  dnats: [
    {
      name: 'd',
      eip: '172.18.0.10',
      externalPort: 8080,
      protocol: 'tcp',
      internalIp: '10.0.1.30',
      internalPort: 80,
    },
  ],
};

const APP: NatAppliance = {
  name: 'gw',
  port: 'vpc-nat-gw-gw-0.kube-system',
  mac: '0a:00:00:00:01:fe',
  lanIp: '10.0.1.254',
  subnetCidr: '10.0.1.0/24',
  routerMac: '0a:00:00:00:01:01',
  routerIp: '10.0.1.1',
  vpcCidrs: ['10.0.2.0/24'],
  neighbours: new Map([['10.0.1.30', '0a:00:00:00:01:1e']]),
  rules: RULES,
};

const tcp = (src: string, dst: string, dport: number) =>
  tcpPacket({ ethSrc: '0a:00:00:00:01:01', ethDst: APP.mac, src, dst, sport: 40000, dport });
const src = (p: { 'ip4.src'?: number }) => formatIPv4(p['ip4.src']!);

describe('natRules: the chains nat-gateway.sh leaves', () => {
  it('SHARED_SNAT in descending prefix order whatever the order of the rules (snat-add inserts)', () => {
    const snat = natRules(RULES).filter((r) => r.chain === 'SHARED_SNAT');
    expect(snat.map((r) => r.src)).toEqual(['10.0.2.0/24', '10.0.0.0/16']);
  });

  it('renders each rule as the script writes it', () => {
    const args = natRules(RULES).map((r) => iptablesArgs(r).join(' '));
    expect(args).toContain('-t nat -A EXCLUSIVE_DNAT -d 172.18.0.11/32 -j DNAT --to-destination 10.0.1.20');
    expect(args).toContain('-t nat -A EXCLUSIVE_SNAT -s 10.0.1.20/32 -j SNAT --to-source 172.18.0.11');
    expect(args).toContain('-t nat -A SHARED_SNAT -o net1 -s 10.0.2.0/24 -j SNAT --to-source 172.18.0.11');
    expect(args).toContain(
      '-t nat -A SHARED_DNAT -p tcp -d 172.18.0.10/32 --dport 8080 -j DNAT --to-destination 10.0.1.30:80',
    );
    expect(args).toContain(
      '-t nat -A HAIRPIN_SNAT -m mark --mark 0x1/0x1 -o eth0 -m conntrack --ctstate DNAT --ctorigdst 172.18.0.10 -j SNAT --to-source 172.18.0.10 --random-fully',
    );
  });
});

describe('the appliance', () => {
  it('out of net1: the longest SHARED_SNAT prefix wins, and the outside answers an EIP', () => {
    const a = fromLan(APP, tcp('10.0.2.5', '203.0.113.9', 443));
    expect(a.kind).toBe('outside');
    if (a.kind !== 'outside') return;
    expect(src(a.packet)).toBe('172.18.0.11');
    expect(a.replies).toBe(true);
  });

  it("a FIP's EXCLUSIVE_SNAT comes before the shared rules", () => {
    const a = fromLan(APP, tcp('10.0.1.20', '203.0.113.9', 443));
    expect(a.kind === 'outside' && src(a.packet)).toBe('172.18.0.11');
  });

  it('untranslated, the outside cannot answer', () => {
    const a = fromLan({ ...APP, rules: { ...RULES, snats: [] } }, tcp('10.0.1.5', '203.0.113.9', 443));
    expect(a.kind === 'outside' && a.replies).toBe(false);
    expect(a.kind === 'outside' && a.reason).toContain('no route back to 10.0.1.5');
  });

  it('from outside: DNAT to the pod, handed to OVN on link with its MAC', () => {
    const a = fromOutside(APP, tcp('203.0.113.9', '172.18.0.10', 8080));
    expect(a.kind).toBe('lan');
    if (a.kind !== 'lan') return;
    expect(formatIPv4(a.packet['ip4.dst']!)).toBe('10.0.1.30');
    expect(a.packet['tcp.dst']).toBe(80);
    expect(a.packet['eth.dst']).toBe(0x0a000000011e);
  });

  it('an EIP port nothing DNATs is refused; a ping to it is answered by the gateway itself', () => {
    const refused = fromOutside(APP, tcp('203.0.113.9', '172.18.0.10', 22));
    expect(refused.kind === 'local' && refused.answered).toBe(false);
    const ping = fromOutside(
      APP,
      icmpEcho({ ethSrc: '02:00:00:00:00:01', ethDst: APP.mac, src: '203.0.113.9', dst: '172.18.0.10', id: 1 }),
    );
    expect(ping.kind === 'local' && ping.answered).toBe(true);
  });

  it('hairpin: a VPC pod to an EIP is DNATed back into the VPC and SNATed to the EIP (HAIRPIN_SNAT)', () => {
    const a = fromLan(APP, tcp('10.0.2.5', '172.18.0.10', 8080));
    expect(a.kind).toBe('lan');
    if (a.kind !== 'lan') return;
    expect(src(a.packet)).toBe('172.18.0.10');
    expect(formatIPv4(a.packet['ip4.dst']!)).toBe('10.0.1.30');
  });

  it('another subnet of the VPC goes via the router port; an unknown address on link gets no ARP answer', () => {
    const other = fromOutside(
      { ...APP, rules: { ...RULES, dnats: [{ ...RULES.dnats[0]!, internalIp: '10.0.2.7' }] } },
      tcp('203.0.113.9', '172.18.0.10', 8080),
    );
    expect(other.kind === 'lan' && other.packet['eth.dst']).toBe(0x0a0000000101);
    const unknown = fromOutside({ ...APP, neighbours: new Map() }, tcp('203.0.113.9', '172.18.0.10', 8080));
    expect(unknown.kind).toBe('dropped');
  });
});
