import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../test/fc.ts';
import { SAMPLE_ENV, matchEnvArbitrary, matchExprArbitrary, matchPacketArbitrary } from './arbitrary.ts';
import { compileMatch } from './compile.ts';
import { type MatchEnv, checkMatchEnv } from './env.ts';
import { evaluateMatch } from './evaluate.ts';
import { type MatchFieldValues, type MatchPacket, packetFromRecord } from './packet.ts';
import { parseMatch } from './parser.ts';
import { printMatch } from './printer.ts';

const ip4 = (s: string) => s.split('.').reduce((a, o) => a * 256 + Number(o), 0);
const IPV4 = { 'eth.type': 0x800 } as const;
const TCP = { ...IPV4, 'ip.proto': 6 } as const;
const UDP = { ...IPV4, 'ip.proto': 17 } as const;
const pkt = (fields: MatchFieldValues, inport = 'web-0.default', outport = 'db-0.prod') =>
  packetFromRecord({ inport, outport, fields });

const env: MatchEnv = {
  addressSets: new Map<string, readonly string[]>([
    ['allow', ['10.16.0.5', '10.17.0.0/16']],
    ['empty', []],
    ['v6', ['fd00::/64']],
    ['ports', ['80', '443', '1024']],
  ]),
  portGroups: new Map([['ovn.default.np', ['web-0.default', 'web-1.default']]]),
  portGroupAddresses: (pg, family) =>
    pg === 'ovn.default.np' ? (family === 4 ? ['10.16.0.5', '10.16.0.6'] : []) : undefined,
};

/** Both evaluators, which must agree; returns their common answer. */
function matches(text: string, p: MatchPacket, e: MatchEnv = env): boolean {
  const ast = parseMatch(text);
  const reference = evaluateMatch(ast, p, e);
  expect(compileMatch(ast, e)(p)).toBe(reference);
  return reference;
}

describe('evaluation: prerequisites and negation (lib/expr.c expr_annotate)', () => {
  it('adds prerequisites to each comparison: tcp.dst needs TCP over IP', () => {
    expect(matches('tcp.dst == 80', pkt({ ...TCP, 'tcp.dst': 80 }))).toBe(true);
    expect(matches('tcp.dst == 80', pkt({ ...UDP, 'udp.dst': 80, 'tcp.dst': 80 }))).toBe(false);
    expect(matches('tcp.dst == 80', pkt({ 'eth.type': 0x806, 'ip.proto': 6, 'tcp.dst': 80 }))).toBe(false);
  });

  it('pushes ! down before adding them: !(tcp.dst == 80) is tcp.dst != 80, and neither matches UDP', () => {
    const udp = pkt({ ...UDP, 'udp.dst': 53 });
    expect(matches('!(tcp.dst == 80)', udp)).toBe(false);
    expect(matches('tcp.dst != 80', udp)).toBe(false);
    expect(matches('!(tcp.dst == 80)', pkt({ ...TCP, 'tcp.dst': 443 }))).toBe(true);
    expect(matches('!(1 <= tcp.dst <= 1023)', udp)).toBe(false);
    expect(matches('!(1 <= tcp.dst <= 1023)', pkt({ ...TCP, 'tcp.dst': 8080 }))).toBe(true);
  });

  it('negates a predicate after annotating it: !ip4.mcast holds for ARP', () => {
    expect(matches('!ip4.mcast', pkt({ 'eth.type': 0x806, 'eth.dst': 0x01005e0000fb }))).toBe(true);
    expect(matches('!ip4.mcast', pkt({ ...UDP, 'eth.dst': 0x01005e0000fb, 'ip4.dst': ip4('224.0.0.251') }))).toBe(
      false,
    );
    expect(matches('ip4.mcast', pkt({ ...UDP, 'eth.dst': 0x01005e0000fb, 'ip4.dst': ip4('224.0.0.251') }))).toBe(true);
  });

  it('gives ct.* bits the prerequisite ct.trk', () => {
    const untracked = pkt({ ...TCP, ct_state: 0 });
    expect(matches('!ct.new', untracked)).toBe(false);
    expect(matches('ct.trk', untracked)).toBe(false);
    const reply = pkt({ ...TCP, ct_state: 0x2a });
    expect(matches('ct.est && !ct.rel && !ct.new && !ct.inv && ct.rpl && ct_label.blocked == 0', reply)).toBe(true);
    expect(matches('ct.est && ct_label.blocked == 0', pkt({ ...TCP, ct_state: 0x22, ct_label: 1n }))).toBe(false);
  });

  it('reads !multibit as == 0 with the prerequisite', () => {
    expect(matches('!tcp.dst', pkt({ ...TCP, 'tcp.dst': 0 }))).toBe(true);
    expect(matches('!tcp.dst', pkt({ ...UDP }))).toBe(false);
  });

  it('gives subfields their own prerequisites (vlan.vid needs vlan.present)', () => {
    expect(matches('vlan.vid == 0', pkt({ 'vlan.tci': 0 }))).toBe(false);
    expect(matches('vlan.vid == 5', pkt({ 'vlan.tci': 0x1005 }))).toBe(true);
    expect(matches('vlan.tci == 0', pkt({}))).toBe(true);
  });
});

describe('evaluation: constants, sets and fields', () => {
  it('compares under masks and CIDR prefixes', () => {
    const p = pkt({ ...IPV4, 'ip4.src': ip4('10.16.3.4'), 'eth.dst': 0x01005e0000fb });
    expect(matches('ip4.src == 10.16.0.0/16', p)).toBe(true);
    expect(matches('ip4.src == 10.17.0.0/16', p)).toBe(false);
    expect(matches('ip4.src == {192.168.0.0/16, 10.0.0.0/8}', p)).toBe(true);
    expect(matches('ip4.src != {192.168.0.0/16, 10.0.0.0/8}', p)).toBe(false);
    expect(matches('eth.dst[40]', p)).toBe(true);
    expect(matches('eth.mcast && !eth.bcast', p)).toBe(true);
    expect(matches('eth.dst == 01:00:00:00:00:00/01:00:00:00:00:00', p)).toBe(true);
  });

  it('cuts a constant to the slice it is compared with', () => {
    expect(matches('tcp.dst[0..3] == 255', pkt({ ...TCP, 'tcp.dst': 0x1f }))).toBe(true);
    expect(matches('tcp.dst[4..7] == 1', pkt({ ...TCP, 'tcp.dst': 0x1f }))).toBe(true);
  });

  it('handles ranges at their edges', () => {
    const at = (port: number) => matches('1024 <= tcp.dst < 2048', pkt({ ...TCP, 'tcp.dst': port }));
    expect([at(1023), at(1024), at(2047), at(2048)]).toEqual([false, true, true, false]);
  });

  it('reads registers as slices of xxreg0 (reg0 most significant)', () => {
    expect(matches('reg0 == 7 && reg3 == 1', pkt({ xxreg0: (7n << 96n) | 1n }))).toBe(true);
    expect(matches('reg9 == 2 && reg8 == 1', pkt({ xreg4: (1n << 32n) | 2n }))).toBe(true);
  });

  it('matches neighbour discovery and broadcast predicates', () => {
    const ns = pkt({ 'eth.type': 0x86dd, 'ip.proto': 58, 'ip.ttl': 255, 'icmp6.type': 135, 'icmp6.code': 0 });
    expect(matches('nd', ns)).toBe(true);
    expect(matches('nd_ns', ns)).toBe(true);
    expect(matches('nd_na', ns)).toBe(false);
    expect(matches('nd', pkt({ 'eth.type': 0x86dd, 'ip.proto': 58, 'ip.ttl': 64, 'icmp6.type': 135 }))).toBe(false);
    expect(matches('eth.bcast', pkt({ 'eth.dst': 0xffffffffffff }))).toBe(true);
    expect(matches('ip && icmp', ns)).toBe(true);
  });

  it('accepts numbers and bigints for the same field', () => {
    expect(matches('ip4.src == 10.0.0.1', pkt({ ...IPV4, 'ip4.src': BigInt(ip4('10.0.0.1')) }))).toBe(true);
    expect(matches('eth.src == 0a:58:0a:10:00:05', pkt({ 'eth.src': 0x0a580a100005n }))).toBe(true);
    expect(matches('ip6.src == fd00::1', pkt({ 'eth.type': 0x86dd, 'ip6.src': (0xfd00n << 112n) | 1n }))).toBe(true);
    expect(matches('ct_label.blocked', pkt({ ct_label: 1 }))).toBe(true);
  });

  it('shares ARP storage with RARP', () => {
    expect(matches('rarp.op == 3', pkt({ 'eth.type': 0x8035, 'arp.op': 3 }))).toBe(true);
    expect(matches('arp.op == 3', pkt({ 'eth.type': 0x8035, 'arp.op': 3 }))).toBe(false);
  });

  it('compares logical ports by name', () => {
    expect(matches('inport == {"a", "web-0.default"}', pkt({}))).toBe(true);
    expect(matches('outport == "web-0.default"', pkt({}))).toBe(false);
    expect(matches('!(inport != "web-0.default")', pkt({}))).toBe(true);
  });

  it('evaluates is_chassis_resident with the environment (true by default, as ovn-trace)', () => {
    expect(matches('is_chassis_resident("cr-lrp")', pkt({}), {})).toBe(true);
    expect(matches('!is_chassis_resident("cr-lrp")', pkt({}), { isChassisResident: (p) => p !== 'cr-lrp' })).toBe(true);
  });
});

describe('evaluation: address sets and port groups', () => {
  const src = (a: string) => pkt({ ...TCP, 'ip4.src': ip4(a), 'tcp.dst': 80 });

  it('evaluates a Kube-OVN NetworkPolicy ACL', () => {
    const acl = 'outport == @ovn.default.np && ip && ip4.src == $allow && ip4.src != $empty && tcp.dst == 80';
    expect(
      matches(
        acl,
        packetFromRecord({ outport: 'web-1.default', fields: { ...TCP, 'ip4.src': ip4('10.17.9.9'), 'tcp.dst': 80 } }),
      ),
    ).toBe(true);
    expect(
      matches(
        acl,
        packetFromRecord({ outport: 'web-1.default', fields: { ...TCP, 'ip4.src': ip4('10.18.0.1'), 'tcp.dst': 80 } }),
      ),
    ).toBe(false);
    expect(
      matches(
        acl,
        packetFromRecord({ outport: 'db-0.prod', fields: { ...TCP, 'ip4.src': ip4('10.17.9.9'), 'tcp.dst': 80 } }),
      ),
    ).toBe(false);
  });

  it('makes an empty set a constant without prerequisites', () => {
    const arp = pkt({ 'eth.type': 0x806 });
    expect(matches('ip4.src != $empty', arp)).toBe(true);
    expect(matches('ip4.src == $empty', src('10.16.0.5'))).toBe(false);
    expect(matches('!(ip4.src == $empty)', arp)).toBe(true);
  });

  it('resolves the derived $<pg>_ip4', () => {
    expect(matches('ip4.src == $ovn.default.np_ip4', src('10.16.0.6'))).toBe(true);
    expect(matches('ip6.src != $ovn.default.np_ip6', pkt({}))).toBe(true);
  });

  it('matches nothing when a set is unknown or its contents fail OVN checks, even under ! or ||', () => {
    expect(matches('ip4.src == $nope || 1', src('10.16.0.5'))).toBe(false);
    expect(matches('!(ip4.src == $nope)', src('10.16.0.5'))).toBe(false);
    expect(matches('inport == @nope || 1', src('10.16.0.5'))).toBe(false);
    expect(matches('ip4.src != $v6 || 1', src('10.16.0.5'))).toBe(false);
    expect(checkMatchEnv(parseMatch('ip4.src != $v6 || outport == @nope'), env).map((i) => i.code)).toEqual([
      'constant-too-wide',
      'unknown-port-group',
    ]);
  });

  it('ANDs an ordinal comparison over a set, and refuses an empty one', () => {
    expect(matches('tcp.dst < $ports', pkt({ ...TCP, 'tcp.dst': 79 }))).toBe(true);
    expect(matches('tcp.dst < $ports', pkt({ ...TCP, 'tcp.dst': 100 }))).toBe(false);
    expect(matches('tcp.dst < $empty || 1', pkt({ ...TCP }))).toBe(false);
    expect(checkMatchEnv(parseMatch('tcp.dst < $empty'), env)[0]?.code).toBe('ordinal-op-with-empty-set');
  });

  it('skips address-set entries OVN cannot read', () => {
    const e: MatchEnv = { addressSets: { s: ['junk', '10.0.0.1', '10.0.0.0-10.0.0.9'] } };
    expect(matches('ip4.src == $s', src('10.0.0.1'), e)).toBe(true);
    expect(checkMatchEnv(parseMatch('ip4.src == $s'), e)).toEqual([]);
  });

  it('reports hand-built ASTs the parser would reject', () => {
    const bad = { kind: 'cmp', field: { name: 'inport' }, op: '!=', value: { kind: 'string', value: 'x' } } as const;
    expect(checkMatchEnv(bad, {}).map((i) => i.code)).toEqual(['nominal-inequality']);
    expect(evaluateMatch(bad, pkt({}), {})).toBe(false);
    expect(compileMatch(bad, {})(pkt({}))).toBe(false);
  });
});

describe('evaluation (properties)', () => {
  it('compileMatch agrees with evaluateMatch', () => {
    fc.assert(
      fc.property(
        matchExprArbitrary(),
        matchEnvArbitrary(),
        fc.array(matchPacketArbitrary(), { minLength: 1, maxLength: 8 }),
        (e, environment, packets) => {
          const compiled = compileMatch(e, environment);
          for (const p of packets) expect(compiled(p)).toBe(evaluateMatch(e, p, environment));
        },
      ),
      fcParams(300),
    );
  });

  it('evaluating parseMatch(printMatch(ast)) gives what evaluating ast gives', () => {
    fc.assert(
      fc.property(
        matchExprArbitrary(),
        fc.array(matchPacketArbitrary(), { minLength: 1, maxLength: 8 }),
        (e, packets) => {
          const reparsed = parseMatch(printMatch(e));
          for (const p of packets) expect(evaluateMatch(reparsed, p, SAMPLE_ENV)).toBe(evaluateMatch(e, p, SAMPLE_ENV));
        },
      ),
      fcParams(200),
    );
  });

  it('!(a && b) evaluates as !a || !b', () => {
    fc.assert(
      fc.property(
        matchExprArbitrary({ depth: 2 }),
        matchExprArbitrary({ depth: 2 }),
        matchPacketArbitrary(),
        (a, b, p) => {
          const notAnd = evaluateMatch({ kind: 'not', expr: { kind: 'and', args: [a, b] } }, p, SAMPLE_ENV);
          const orNots = evaluateMatch(
            {
              kind: 'or',
              args: [
                { kind: 'not', expr: a },
                { kind: 'not', expr: b },
              ],
            },
            p,
            SAMPLE_ENV,
          );
          expect(notAnd).toBe(orNots);
        },
      ),
      fcParams(200),
    );
  });
});
