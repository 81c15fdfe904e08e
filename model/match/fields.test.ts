import { describe, expect, it } from 'vitest';
import type { MatchExpr } from './ast.ts';
import { type FieldLevel, MATCH_SYMBOLS, MATCH_STORAGE_KEYS, lookupSymbol } from './fields.ts';
import { parseMatch } from './parser.ts';
import { forEachComparison } from './walk.ts';

/** OVN's expr_get_level over an (unannotated) expansion: nominal if any comparison names a nominal symbol. */
function levelOfExpansion(e: MatchExpr): FieldLevel {
  let level: FieldLevel = 'boolean';
  forEachComparison(e, (c) => {
    if (lookupSymbol(c.field.name)?.level === 'nominal') level = 'nominal';
  });
  return level;
}

describe('symbol table', () => {
  it('lays registers out as OVN 23.03 does (tests/ovn.at "registers")', () => {
    const layout = [...MATCH_SYMBOLS.values()]
      .filter((s) => /^x*reg\d$/.test(s.name))
      .map((s) => (s.kind === 'int' ? `${s.name} = ${s.parent ?? s.storage}` : s.name))
      .sort();
    expect(layout).toEqual([
      'reg0 = xxreg0[96..127]',
      'reg1 = xxreg0[64..95]',
      'reg2 = xxreg0[32..63]',
      'reg3 = xxreg0[0..31]',
      'reg4 = xxreg1[96..127]',
      'reg5 = xxreg1[64..95]',
      'reg6 = xxreg1[32..63]',
      'reg7 = xxreg1[0..31]',
      'reg8 = xreg4[32..63]',
      'reg9 = xreg4[0..31]',
      'xreg0 = xxreg0[64..127]',
      'xreg1 = xxreg0[0..63]',
      'xreg2 = xxreg1[64..127]',
      'xreg3 = xxreg1[0..63]',
      'xreg4 = xreg4',
      'xxreg0 = xxreg0',
      'xxreg1 = xxreg1',
    ]);
  });

  it('defines the conntrack fields as OVN 23.03 does (tests/ovn.at "conntrack fields")', () => {
    const ct = [...MATCH_SYMBOLS.values()]
      .filter((s) => s.name.startsWith('ct') && s.kind === 'int' && s.parent !== undefined)
      .map((s) => (s.kind === 'int' ? `${s.name} = ${s.parent}` : ''))
      .sort();
    expect(ct).toEqual([
      'ct.dnat = ct_state[7]',
      'ct.est = ct_state[1]',
      'ct.inv = ct_state[4]',
      'ct.new = ct_state[0]',
      'ct.rel = ct_state[2]',
      'ct.rpl = ct_state[3]',
      'ct.snat = ct_state[6]',
      'ct.trk = ct_state[5]',
      'ct_label.blocked = ct_label[0]',
      'ct_label.ecmp_reply_eth = ct_label[32..79]',
      'ct_label.ecmp_reply_port = ct_label[80..95]',
      'ct_label.force_snat = ct_label[3]',
      'ct_label.label = ct_label[96..127]',
      'ct_label.natted = ct_label[1]',
      'ct_label.skip_snat = ct_label[2]',
      'ct_mark.blocked = ct_mark[0]',
      'ct_mark.ecmp_reply_port = ct_mark[16..31]',
      'ct_mark.force_snat = ct_mark[3]',
      'ct_mark.natted = ct_mark[1]',
      'ct_mark.skip_snat = ct_mark[2]',
    ]);
  });

  it('gives every ct.* bit but ct.trk the prerequisite ct.trk', () => {
    for (const n of ['new', 'est', 'rel', 'rpl', 'inv', 'snat', 'dnat'])
      expect(lookupSymbol(`ct.${n}`)?.prereqs).toBe('ct.trk');
    expect(lookupSymbol('ct.trk')?.prereqs).toBeUndefined();
  });

  it('makes exactly the non-maskable OpenFlow fields nominal', () => {
    const nominal = [...MATCH_SYMBOLS.values()]
      .filter((s) => s.kind !== 'predicate' && s.level === 'nominal')
      .map((s) => s.name);
    expect(nominal.sort()).toEqual(
      [
        'arp.op',
        'eth.type',
        'icmp4.code',
        'icmp4.type',
        'icmp6.code',
        'icmp6.type',
        'inport',
        'ip.dscp',
        'ip.ecn',
        'ip.proto',
        'ip.ttl',
        'outport',
        'rarp.op',
      ].sort(),
    );
  });

  it('gives each predicate the level OVN computes from its expansion', () => {
    for (const s of MATCH_SYMBOLS.values()) {
      if (s.kind !== 'predicate') continue;
      expect({ name: s.name, level: levelOfExpansion(parseMatch(s.expansion)) }).toEqual({
        name: s.name,
        level: s.level,
      });
    }
  });

  it('has the widths and prerequisites of the fields ACLs use', () => {
    const pick = (n: string) => {
      const s = lookupSymbol(n);
      return s && { width: s.width, level: s.level, prereqs: s.prereqs };
    };
    expect(pick('tcp.dst')).toEqual({ width: 16, level: 'ordinal', prereqs: 'tcp' });
    expect(pick('ip4.src')).toEqual({ width: 32, level: 'ordinal', prereqs: 'ip4' });
    expect(pick('ip6.dst')).toEqual({ width: 128, level: 'ordinal', prereqs: 'ip6' });
    expect(pick('ip.proto')).toEqual({ width: 8, level: 'nominal', prereqs: 'ip' });
    expect(pick('tcp.flags')).toEqual({ width: 12, level: 'ordinal', prereqs: 'tcp' });
    expect(pick('vlan.vid')).toEqual({ width: 12, level: 'ordinal', prereqs: 'vlan.present' });
    expect(pick('nd.sll')).toEqual({ width: 48, level: 'ordinal', prereqs: 'nd_ns' });
    expect(pick('inport')).toEqual({ width: 0, level: 'nominal', prereqs: undefined });
    expect(lookupSymbol('rarp.spa')).toMatchObject({ storage: 'arp.spa', prereqs: 'rarp' });
  });

  it('parses every expansion and prerequisite with our own parser', () => {
    for (const s of MATCH_SYMBOLS.values()) {
      if (s.kind === 'predicate') expect(() => parseMatch(s.expansion)).not.toThrow();
      if (s.prereqs !== undefined) expect(lookupSymbol(s.prereqs)).toBeDefined();
    }
  });

  it('lists each storage key once', () => {
    expect(new Set(MATCH_STORAGE_KEYS).size).toBe(MATCH_STORAGE_KEYS.length);
    expect(MATCH_STORAGE_KEYS).toContain('ct_state');
    expect(MATCH_STORAGE_KEYS).not.toContain('rarp.op');
  });
});
