import { describe, expect, it } from 'vitest';
import type { MatchExpr } from './ast.ts';
import { MatchParseError } from './errors.ts';
import { parseMatch, tryParseMatch } from './parser.ts';
import { printMatch } from './printer.ts';

const ip4 = (s: string) => BigInt(s.split('.').reduce((a, o) => a * 256 + Number(o), 0));

function rejection(text: string): { code: string; position: number } {
  try {
    parseMatch(text);
  } catch (e) {
    expect(e).toBeInstanceOf(MatchParseError);
    const err = e as MatchParseError;
    expect(err.text).toBe(text);
    return { code: err.code, position: err.position };
  }
  throw new Error(`accepted: ${text}`);
}

describe('parseMatch: matches Kube-OVN writes', () => {
  it('a NetworkPolicy ingress rule', () => {
    const text =
      'outport == @ovn.default.np && ip && ip4.src == $np.default.ingress.allow.IPv4.0 && ip4.src != $np.default.ingress.except.IPv4.0 && tcp.dst == 80';
    expect(parseMatch(text)).toEqual<MatchExpr>({
      kind: 'and',
      args: [
        { kind: 'cmp', field: { name: 'outport' }, op: '==', value: { kind: 'port-group', name: 'ovn.default.np' } },
        { kind: 'field', field: { name: 'ip' } },
        {
          kind: 'cmp',
          field: { name: 'ip4.src' },
          op: '==',
          value: { kind: 'address-set', name: 'np.default.ingress.allow.IPv4.0' },
        },
        {
          kind: 'cmp',
          field: { name: 'ip4.src' },
          op: '!=',
          value: { kind: 'address-set', name: 'np.default.ingress.except.IPv4.0' },
        },
        { kind: 'cmp', field: { name: 'tcp.dst' }, op: '==', value: { kind: 'int', value: 80n, format: 'decimal' } },
      ],
    });
  });

  it('a subnet ACL with a CIDR', () => {
    expect(parseMatch('inport == @pg && ip4 && ip4.dst == 10.16.0.0/16')).toMatchObject({
      kind: 'and',
      args: [
        {},
        { kind: 'field' },
        { value: { kind: 'int', value: ip4('10.16.0.0'), mask: 0xffff0000n, format: 'ipv4' } },
      ],
    });
  });

  it('a set of addresses', () => {
    expect(parseMatch('ip4.src == 10.16.0.0/16 && ip4.dst == {10.0.0.1, 10.0.0.2}')).toMatchObject({
      args: [{}, { value: { kind: 'set', items: [{ value: ip4('10.0.0.1') }, { value: ip4('10.0.0.2') }] } }],
    });
  });

  it('a port range', () => {
    expect(parseMatch('1024 <= tcp.dst <= 2048')).toEqual<MatchExpr>({
      kind: 'range',
      field: { name: 'tcp.dst' },
      low: { value: { kind: 'int', value: 1024n, format: 'decimal' }, inclusive: true },
      high: { value: { kind: 'int', value: 2048n, format: 'decimal' }, inclusive: true },
    });
  });

  it('a conntrack state test with ct_label.blocked', () => {
    const e = parseMatch('ct.est && !ct.rel && !ct.new && !ct.inv && ct.rpl && ct_label.blocked == 0');
    expect(e).toMatchObject({
      kind: 'and',
      args: [
        { kind: 'field', field: { name: 'ct.est' } },
        { kind: 'not', expr: { kind: 'field', field: { name: 'ct.rel' } } },
        { kind: 'not' },
        { kind: 'not' },
        { kind: 'field', field: { name: 'ct.rpl' } },
        { kind: 'cmp', field: { name: 'ct_label.blocked' }, op: '==', value: { value: 0n } },
      ],
    });
  });

  it.each([
    'ip4.src == 192.168.20.3 && ip4.dst == $test_create_node_acl_pg_ip4',
    'ip6.src == fc00::0af4:01',
    'nd || nd_ra || nd_rs',
    'inport == @ovn.default.np && ip && udp && 53 <= udp.dst <= 53',
    'ip4.dst == 10.16.0.0/16',
    'ip4.src == $ovn.default_ip4 && ip4.dst != $ovn.default.except',
    'outport == "web-0.default" && ip4 && icmp4',
    'ip6 && ip6.src == fd00::/64 && icmp6.type == {135, 136}',
    '!ct.est || (ct.est && ct_label.blocked == 1)',
    'reg0[7] == 1 && (inport == @pg && ip)',
    'eth.dst == ff:ff:ff:ff:ff:ff && arp.op == 1 && arp.tpa == 10.16.0.1',
    'is_chassis_resident("cr-ovn-cluster-external")',
  ])('accepts %s', (text) => {
    expect(tryParseMatch(text).ok).toBe(true);
  });
});

describe('parseMatch: OVN 23.03 expression parser cases (tests/ovn.at)', () => {
  it.each([
    ['eth.type==0x800', 'eth.type == 0x800'],
    ['eth.type[0..15] == 0x800', 'eth.type[0..15] == 0x800'],
    ['vlan.present == 1', 'vlan.present == 1'],
    ['!(vlan.present == 0)', '!(vlan.present == 0)'],
    ['!vlan.pcp', '!vlan.pcp'],
    ['0x4 <= vlan.pcp', 'vlan.pcp >= 0x4'],
    ['0x4 > vlan.pcp', 'vlan.pcp < 0x4'],
    ['!(0x4 != vlan.pcp)', '!(vlan.pcp != 0x4)'],
    ['4 >= vlan.pcp > 1', '1 < vlan.pcp <= 4'],
    [
      'vlan.pcp == 1 || ((vlan.pcp == 2 || vlan.pcp == 3) || vlan.pcp == 4)',
      'vlan.pcp == 1 || ((vlan.pcp == 2 || vlan.pcp == 3) || vlan.pcp == 4)',
    ],
    [
      'ip4.src == {10.0.0.0/8, 192.168.0.0/16, 172.16.20.0/24, 8.8.8.8}',
      'ip4.src == {10.0.0.0/8, 192.168.0.0/16, 172.16.20.0/24, 8.8.8.8}',
    ],
    ['ip4.src == ::1.2.3.4/::ffff:ffff', 'ip4.src == ::102:304/::ffff:ffff'],
    ['!1', '!1'],
    ['inport == "eth0"', 'inport == "eth0"'],
    ['!(inport != "eth0")', '!(inport != "eth0")'],
    ['ip[0] == 1', 'ip[0] == 1'],
    ['!vlan.present', '!vlan.present'],
    ['!ip.first_frag', '!ip.first_frag'],
    ['vlan.pcp == {1 2 3,}', 'vlan.pcp == {1, 2, 3}'],
    ['eth.type == 0x800 // comment', 'eth.type == 0x800'],
  ])('%s → %s', (input, canonical) => {
    expect(printMatch(parseMatch(input))).toBe(canonical);
  });

  it('accepts 100 nested parentheses and rejects 101', () => {
    expect(parseMatch(`${'('.repeat(100)}0${')'.repeat(100)}`)).toEqual({ kind: 'bool', value: false });
    expect(rejection(`${'('.repeat(101)}0${')'.repeat(101)}`)).toEqual({ code: 'parens-too-deep', position: 100 });
  });
});

describe('parseMatch: rejections (code and offset)', () => {
  it.each([
    ['ip4 && ip6 || tcp', 'mixed-and-or', 11],
    ['eth.type == 0x800 || eth.type == 0x86dd && ip.proto == 17', 'mixed-and-or', 40],
    ['tcp.dst', 'bare-multibit-field', 0],
    ['eth.type', 'bare-multibit-field', 0],
    ['!(!(vlan.pcp))', 'bare-multibit-field', 4],
    ['inport < "x"', 'ordinal-op-on-nominal', 7],
    ['eth.type > 0x800', 'ordinal-op-on-nominal', 9],
    ['vlan.present > 0', 'ordinal-op-on-nominal', 13],
    ['ip > 0', 'ordinal-op-on-nominal', 3],
    ['ip.ttl < 2', 'ordinal-op-on-nominal', 7],
    ['inport != "eth0"', 'nominal-inequality', 0],
    ['!(inport == "eth0")', 'nominal-inequality', 2],
    ['eth.type != 0x800', 'nominal-inequality', 0],
    ['!(eth.type == 0x800)', 'nominal-inequality', 2],
    ['ip.proto != {6, 17}', 'nominal-inequality', 0],
    ['!ip', 'nominal-predicate-negated', 1],
    ['ip == 0', 'nominal-predicate-negated', 6],
    ['!(tcp && ct.est)', 'nominal-predicate-negated', 2],
    ['xyzzy == 1', 'unknown-field', 0],
    ['123 == xyzzy', 'unknown-field', 7],
    ['ip4.src == ::1', 'constant-too-wide', 11],
    ['tcp.dst == 65536', 'constant-too-wide', 11],
    ['tcp.dst == {80, 0x10000}', 'constant-too-wide', 16],
    ['ct.new == 2', 'constant-too-wide', 10],
    ['ip4.src > {1, 2, 3}', 'ordinal-op-with-set', 8],
    ['1 <= tcp.dst <= {2}', 'ordinal-op-with-set', 13],
    ['eth.src > 00:00:00:00:11:11/00:00:00:00:ff:ff', 'ordinal-op-with-masked', 8],
    ['ip4.src == "eth0"', 'type-mismatch', 11],
    ['inport == 1', 'type-mismatch', 10],
    ['inport == $as', 'type-mismatch', 10],
    ['ip4.src == @pg', 'type-mismatch', 11],
    ['{1, "eth0"} == tcp.dst', 'set-type-mismatch', 4],
    ['ip4.src = 1.2.3.4', 'syntax-error', 8],
    ['ct.new = 1', 'syntax-error', 7],
    ['inport', 'syntax-error', 6],
    ['123 == 123', 'syntax-error', 7],
    ['123', 'syntax-error', 3],
    ['123 x', 'syntax-error', 4],
    ['eth.type == xyzzy', 'syntax-error', 12],
    ['(1 x)', 'syntax-error', 3],
    ['eth.dst == {}', 'syntax-error', 12],
    ['eth.dst[40] x', 'syntax-error', 12],
    ['eth.type[] == 1', 'syntax-error', 9],
    ['eth.type[::1] == 1', 'syntax-error', 9],
    ['eth.type[18446744073709551615] == 1', 'syntax-error', 9],
    ['eth.type[5!] == 1', 'syntax-error', 10],
    ['!!ct.new', 'syntax-error', 1],
    ['', 'syntax-error', 0],
    ['is_chassis_resident(1)', 'syntax-error', 20],
    ['inport[1] == 1', 'bad-slice', 6],
    ['eth.type[5..1] == 1', 'bad-slice', 0],
    ['eth.type[12..16] == 1', 'bad-slice', 0],
    ['eth.type[10] == 1', 'bad-slice', 0],
    ['!0x800 != eth.type', 'not-needs-parentheses', 0],
    ['!tcp.dst == 80', 'not-needs-parentheses', 0],
    ['1 == eth.type == 2', 'bad-range-form', 2],
    ['1 < tcp.dst > 2', 'bad-range-form', 2],
    ['^port == 1', 'unexpanded-template', 0],
    ['inport == ^port', 'unexpanded-template', 10],
    ['foo("x")', 'unknown-function', 0],
    ['ip4 &', 'invalid-operator', 4],
    ['ip4 | ip6', 'invalid-operator', 4],
    ['tcp.dst >= 80/0xff', 'mask-format-mismatch', 11],
    ['inport == "a', 'unterminated-string', 10],
    ['inport == "a\\x"', 'invalid-string-escape', 10],
    ['tcp.dst == 080', 'decimal-leading-zero', 11],
    ['ip4.src == $1', 'invalid-name', 11],
    ['ip4.src == 10.0.0.1 é', 'invalid-character', 20],
    ['inport != "a" &', 'invalid-operator', 14],
  ])('%j → %s at %d', (text, code, position) => {
    expect(rejection(text)).toEqual({ code, position });
  });

  it('says where and what in the message', () => {
    const r = tryParseMatch('ip4 && ip6 || tcp');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.message).toBe(
        'match "ip4 && ip6 || tcp": "&&" and "||" must be parenthesized when used together (at offset 11, near "|| tcp")',
      );
  });
});

describe('parseMatch: constructs', () => {
  it('turns constant-first comparisons around', () => {
    expect(parseMatch('80 == tcp.dst')).toEqual(parseMatch('tcp.dst == 80'));
    expect(parseMatch('1024 < tcp.src')).toEqual(parseMatch('tcp.src > 1024'));
  });

  it('stores a descending range ascending', () => {
    expect(parseMatch('2048 >= tcp.dst > 1024')).toEqual({
      kind: 'range',
      field: { name: 'tcp.dst' },
      low: { value: { kind: 'int', value: 1024n, format: 'decimal' }, inclusive: false },
      high: { value: { kind: 'int', value: 2048n, format: 'decimal' }, inclusive: true },
    });
  });

  it('accepts an address set as a range bound', () => {
    expect(parseMatch('$lo <= tcp.dst <= 100')).toMatchObject({
      kind: 'range',
      low: { value: { kind: 'address-set', name: 'lo' } },
    });
  });

  it('reads bit slices', () => {
    expect(parseMatch('reg0[3..5] == 2')).toMatchObject({ field: { name: 'reg0', slice: { lo: 3, hi: 5 } } });
    expect(parseMatch('eth.dst[40]')).toEqual({ kind: 'field', field: { name: 'eth.dst', slice: { lo: 40, hi: 40 } } });
  });

  it('keeps booleans, nesting and negation as written', () => {
    expect(parseMatch('1')).toEqual({ kind: 'bool', value: true });
    expect(parseMatch('!0')).toEqual({ kind: 'not', expr: { kind: 'bool', value: false } });
    expect(parseMatch('(ip4 && tcp) && udp')).toMatchObject({
      kind: 'and',
      args: [{ kind: 'and' }, { kind: 'field' }],
    });
    expect(parseMatch('!(ct.est || ct.rel)')).toMatchObject({ kind: 'not', expr: { kind: 'or' } });
  });

  it('allows a negated multibit field (== 0) and a nominal field tested under !', () => {
    expect(parseMatch('!tcp.dst')).toEqual({ kind: 'not', expr: { kind: 'field', field: { name: 'tcp.dst' } } });
    expect(tryParseMatch('!eth.type').ok).toBe(true);
    expect(tryParseMatch('!(ip.proto != 6)').ok).toBe(true);
  });

  it('cuts nothing a slice cannot hold: the width check is against the whole field, as in OVN', () => {
    expect(tryParseMatch('tcp.dst[0..3] == 255').ok).toBe(true);
    expect(tryParseMatch('tcp.dst[0..3] == 65536').ok).toBe(false);
  });

  it('reads strings with JSON escapes', () => {
    expect(parseMatch('inport == "a\\"b\\u00e9"')).toMatchObject({ value: { kind: 'string', value: 'a"bé' } });
  });

  it('accepts is_chassis_resident', () => {
    expect(parseMatch('!is_chassis_resident("lrp")')).toEqual({
      kind: 'not',
      expr: { kind: 'chassis-resident', port: 'lrp' },
    });
  });
});
