import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../test/fc.ts';
import { conjuncts, fieldsOf, referencedSets, storageKeysOf } from './analyze.ts';
import { SAMPLE_ENV, matchExprArbitrary, matchPacketArbitrary } from './arbitrary.ts';
import {
  addressSetRef,
  constSet,
  intConst,
  ipConst,
  macConst,
  matchAnd,
  matchCmp,
  matchField,
  matchNot,
  matchOr,
  matchRange,
  portGroupRef,
  stringConst,
} from './build.ts';
import { checkMatchEnv } from './env.ts';
import { evaluateMatch } from './evaluate.ts';
import { parseMatch } from './parser.ts';
import { printMatch } from './printer.ts';

describe('conjuncts', () => {
  it('splits the top-level && and flattens nested ones', () => {
    const parts = conjuncts(parseMatch('outport == @pg && (ip4 && tcp.dst == 80) && (udp || tcp)'));
    expect(parts.map(printMatch)).toEqual(['outport == @pg', 'ip4', 'tcp.dst == 80', 'udp || tcp']);
  });

  it('returns any other expression whole', () => {
    expect(conjuncts(parseMatch('!(ct.est && ct.rpl)')).map(printMatch)).toEqual(['!(ct.est && ct.rpl)']);
  });

  it('a match holds iff all its conjuncts hold (property)', () => {
    fc.assert(
      fc.property(matchExprArbitrary(), matchPacketArbitrary(), (e, p) => {
        expect(conjuncts(e).every((c) => evaluateMatch(c, p, SAMPLE_ENV))).toBe(evaluateMatch(e, p, SAMPLE_ENV));
      }),
      fcParams(300),
    );
  });
});

describe('fieldsOf, storageKeysOf, referencedSets', () => {
  const acl = parseMatch('outport == @ovn.default.np && ip && ip4.src == $allow && 1024 <= tcp.dst <= 2048 && !ct.new');

  it('lists the fields as written', () => {
    expect([...fieldsOf(acl)].sort()).toEqual(['ct.new', 'ip', 'ip4.src', 'outport', 'tcp.dst']);
  });

  it('lists the packet keys read, through prerequisites and predicates', () => {
    expect([...storageKeysOf(acl)].sort()).toEqual([
      'ct_state',
      'eth.type',
      'ip.proto',
      'ip4.src',
      'outport',
      'tcp.dst',
    ]);
    expect([...storageKeysOf(parseMatch('nd.sll == 0a:58:0a:10:00:05'))].sort()).toEqual([
      'eth.type',
      'icmp6.code',
      'icmp6.type',
      'ip.proto',
      'ip.ttl',
      'nd.sll',
    ]);
  });

  it('lists the sets named', () => {
    expect(referencedSets(parseMatch('inport == {@a, "p"} && ip4.dst == {$b, 10.0.0.1} && ip6.dst != $c'))).toEqual({
      addressSets: new Set(['b', 'c']),
      portGroups: new Set(['a']),
    });
  });
});

describe('builders', () => {
  it('build the Kube-OVN NetworkPolicy match', () => {
    const e = matchAnd(
      matchCmp('outport', '==', portGroupRef('ovn.default.np')),
      matchField('ip'),
      matchCmp('ip4.src', '==', addressSetRef('np.default.ingress.allow.IPv4.0')),
      matchCmp('ip4.src', '!=', addressSetRef('np.default.ingress.except.IPv4.0')),
      matchRange('tcp.dst', intConst(1024), intConst(2048)),
    );
    const text =
      'outport == @ovn.default.np && ip && ip4.src == $np.default.ingress.allow.IPv4.0 && ip4.src != $np.default.ingress.except.IPv4.0 && 1024 <= tcp.dst <= 2048';
    expect(printMatch(e)).toBe(text);
    expect(parseMatch(text)).toEqual(e);
  });

  it('build constants the parser would read', () => {
    const e = matchOr(
      matchCmp('ip4.dst', '==', constSet(ipConst('10.16.0.0/16'), ipConst('10.0.0.1'))),
      matchCmp('ip6.dst', '==', ipConst('fd00::/64')),
      matchCmp('eth.src', '==', macConst('0a:58:0a:10:00:05')),
      matchNot(matchCmp('inport', '!=', stringConst('p1'))),
      matchCmp('reg0', '==', intConst(5, 'hex', 0xfn)),
    );
    expect(parseMatch(printMatch(e))).toEqual(e);
    expect(checkMatchEnv(e, {})).toEqual([]);
  });

  it('collapse single-operand conjunctions and disjunctions', () => {
    expect(matchAnd(matchField('ip4'))).toEqual(matchField('ip4'));
    expect(printMatch(matchAnd())).toBe('1');
    expect(printMatch(matchOr())).toBe('0');
  });
});
