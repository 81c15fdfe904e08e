import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { arpRequest, udpPacket } from '../../model/packet/build.ts';
import { emptyTopology } from '../../model/topology/build.ts';
import { portSecPrefixMismatch } from '../../backends/ovn/trace/index.ts';
import { generatedBranches, snatToVipStale, staleCtStages } from './quirks.ts';

const MAC = '0a:00:00:00:00:01';
const from = (src: string, ethSrc = MAC) =>
  udpPacket({
    ethSrc,
    ethDst: '0a:00:00:00:00:02',
    src,
    dst: src.includes(':') ? 'fd00::99' : '10.9.9.9',
    sport: 1,
    dport: 2,
  });
const to = (dst: string) =>
  udpPacket({ ethSrc: '0a:00:00:00:00:09', ethDst: MAC, src: '10.9.9.9', dst, sport: 1, dport: 2 });

describe('portSecPrefixMismatch (normalize.ts rule port-sec-prefix-exact)', () => {
  const subnet = [`${MAC} 10.0.0.0/24`];

  it('is true where ovn-controller lets a subnet address in and ovn-trace compares it exactly', () => {
    expect(portSecPrefixMismatch(subnet, from('10.0.0.5'), 'in')).toBe(true);
    expect(portSecPrefixMismatch(subnet, arpRequest({ sha: MAC, spa: '10.0.0.5', tpa: '10.0.0.1' }), 'in')).toBe(true);
    expect(portSecPrefixMismatch([`${MAC} fd00::/64`], from('fd00::5'), 'in')).toBe(true);
    expect(portSecPrefixMismatch(subnet, to('10.0.0.7'), 'out')).toBe(true);
  });

  it('is false where both agree', () => {
    expect(portSecPrefixMismatch(subnet, from('10.0.0.0'), 'in')).toBe(false); // the exact address ovn-trace compares
    expect(portSecPrefixMismatch(subnet, from('10.1.0.5'), 'in')).toBe(false); // outside: both deny
    // other MAC: both deny
    expect(portSecPrefixMismatch(subnet, from('10.0.0.5', '0a:00:00:00:00:03'), 'in')).toBe(false);
    expect(portSecPrefixMismatch([`${MAC} 10.0.0.5`], from('10.0.0.5'), 'in')).toBe(false); // exact entry
    // host bits set: exact in both
    expect(portSecPrefixMismatch([`${MAC} 10.0.0.1/24`], from('10.0.0.5'), 'in')).toBe(false);
    expect(portSecPrefixMismatch([MAC], from('10.0.0.5'), 'in')).toBe(false); // MAC only
  });

  it('follows ovn-trace in trying only the first entry with the MAC', () => {
    expect(portSecPrefixMismatch([`${MAC} 10.0.0.5`, `${MAC} 10.0.1.0/24`], from('10.0.1.9'), 'in')).toBe(true);
  });
});

describe('portSecPrefixMismatch with several entries', () => {
  it('ovn-controller tries every entry with the MAC, ovn-trace only the first', () => {
    expect(portSecPrefixMismatch([`${MAC} 10.0.0.5`, `${MAC} 10.0.0.6`], from('10.0.0.6'), 'in')).toBe(true);
    expect(portSecPrefixMismatch([`${MAC} 10.0.0.5`, `${MAC} 10.0.0.6`], from('10.0.0.5'), 'in')).toBe(false);
  });
});

describe('trace artefacts found on ovn-trace output (fixtures of backends/ovn/trace)', () => {
  const fixture = (name: string) =>
    readFileSync(new URL(`../../backends/ovn/trace/fixtures/${name}.txt`, import.meta.url), 'utf8');

  it('generatedBranches: a reject ACL answering TCP with tcp_reset, and what its branch meets', () => {
    expect(generatedBranches(fixture('acl-reject-tcp'))).toEqual([
      { datapath: 'sw2', stage: 'ls_in_acl', kind: 'tcp_reset', cts: [], portSensitive: false },
    ]);
    expect(generatedBranches(fixture('gw-dnat-inbound'))).toEqual([]);
  });

  it('staleCtStages: a switch entered from a router that matches ct.new before any ct action of its own (patch-keeps-ct-state)', () => {
    const clean = fixture('gw-dnat-inbound');
    expect(staleCtStages(clean)).toEqual([]);
    const hint =
      ' 7. ls_in_acl_hint (northd.c:6190): ct.new && !ct.est, priority 7, uuid 0f4e0e26\n    reg0[7] = 1;\n    next;\n';
    const stale = clean.replace(
      /( 5\. ls_in_pre_lb \(northd\.c:5806\): ip && inport == "sw3-gw"[^\n]*\n {4}next;\n)/,
      `$1${hint}`,
    );
    expect(stale).not.toBe(clean);
    expect(staleCtStages(stale)).toEqual([{ datapath: 'sw3', stage: 'ls_in_acl_hint' }]);
  });

  it('snatToVipStale: only where a later source test holds for one of the client and the VIP (cause shown)', () => {
    const st = (datapath: string, stage: string, match: string, actions: string[] = []) => ({
      datapath,
      pipeline: 'ingress' as const,
      table: 0,
      stage,
      match,
      actions,
      depth: 0,
      line: 0,
    });
    const base = emptyTopology();
    const topology = {
      ...base,
      addressSet: new Map([
        ['as_client', { name: 'as_client', addresses: ['10.16.0.10'], externalIds: {} }],
        ['as_both', { name: 'as_both', addresses: ['10.16.0.0/16', '10.96.0.0/12'], externalIds: {} }],
      ]),
      portGroup: new Map([['pg1', { name: 'pg1', ports: ['p1'], externalIds: {} }]]),
      switchPort: new Map([['p1', { addresses: ['0a:00:00:00:00:01 10.16.0.10'] } as never]]),
    };
    // The client 10.16.0.10 load-balanced to itself: ct_snat_to_vip makes the source the VIP 10.96.0.10.
    const c = { topology, packet: from('10.16.0.10') };
    const hairpin = st('ls0', 'ls_in_nat_hairpin', 'ip && ct.new', ['ct_snat_to_vip;', '/* nat(src=10.96.0.10) */']);
    // The egress conntrack lookup recirculates: past it OVS matches the SNATed source, ovn-trace the client's.
    const recirc = st('ls0', 'ls_out_pre_stateful', 'reg0[2] == 1', ['ct_lb_mark;']);
    const later = (match: string) => snatToVipStale({ stages: [hairpin, recirc, st('ls0', 'ls_out_acl', match)] }, c);
    // Shown: the test holds for the client and not for the VIP (or the other way round).
    expect(later('reg0[9] == 1 && (ip4.src == 10.16.0.10)')).toBe('ls0');
    expect(later('ip4.src != 10.16.0.0/16')).toBe('ls0');
    expect(later('ip4.src == {10.96.0.10, 192.0.2.1}')).toBe('ls0');
    expect(later('ip4.src == $as_client')).toBe('ls0');
    expect(later('outport == @pg1 && ip4.src == $pg1_ip4')).toBe('ls0');
    // Merely present: both addresses fall alike, the test reads no source, or it cannot be resolved.
    expect(later('ip4.src == 10.0.0.0/8')).toBeUndefined();
    expect(later('ip4.src == $as_both')).toBeUndefined();
    expect(later('ip4.src == $unknown_set')).toBeUndefined();
    expect(later('ip4 && ip4.dst == 10.16.0.10')).toBeUndefined();
    // Before any recirculation OVS too matches the client's source (ct_snat_to_vip does not recirculate).
    const early = st('ls0', 'ls_out_pre_acl', 'ip4.src == 10.16.0.10');
    expect(snatToVipStale({ stages: [hairpin, early] }, c)).toBeUndefined();
    expect(snatToVipStale({ stages: [hairpin, early, recirc] }, c)).toBeUndefined();
    const commit = st('ls0', 'ls_out_stateful', 'reg0[1] == 1', ['ct_commit { ct_mark.blocked = 0; };']);
    expect(snatToVipStale({ stages: [hairpin, commit, early] }, c)).toBeUndefined();
    // No ct_snat_to_vip, or no address in its comment: nothing to show.
    expect(snatToVipStale({ stages: [st('ls0', 'ls_out_acl', 'ip4.src == 10.16.0.10')] }, c)).toBeUndefined();
    const bare = st('ls0', 'ls_in_nat_hairpin', 'ip && ct.new', ['ct_snat_to_vip;']);
    expect(snatToVipStale({ stages: [bare, st('ls0', 'ls_out_acl', 'ip4.src == 10.16.0.10')] }, c)).toBeUndefined();
  });
});
