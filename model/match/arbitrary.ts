/**
 * fast-check generators for the match language (test-only: property tests
 * here and the simulator's differential test import them).
 *
 * - {@link matchExprArbitrary}: ASTs OVN's parser accepts, so that
 *   `parseMatch(printMatch(e))` deep-equals `e`. Negation parity is tracked
 *   so nominal fields are only tested "positively", as OVN requires.
 * - {@link matchEnvArbitrary} / {@link SAMPLE_ENV}: address sets and port
 *   groups under the names the ASTs use (and a few the ASTs name wrongly
 *   on purpose: an IPv6 set against `ip4.src`, an unknown `$nope`).
 * - {@link matchPacketArbitrary}: packets whose field values come mostly from
 *   the same pools as the constants, so comparisons hit often.
 * - {@link matchTokenSoupArbitrary}: near-miss texts for parser fuzzing.
 */
import fc from 'fast-check';
import type { Constant, FieldRef, IntConstant, IntFormat, MatchExpr, MatchValue, RelOp } from './ast.ts';
import { type IntSymbol, MATCH_SYMBOLS, MATCH_STORAGE_KEYS, type MatchStorageKey, type MatchSymbol } from './fields.ts';
import type { MatchEnv } from './env.ts';
import { type MatchPacket, packetFromRecord } from './packet.ts';

const ip4 = (s: string) => BigInt(s.split('.').reduce((a, o) => a * 256 + Number(o), 0));
const mac = (s: string) => BigInt(`0x${s.replaceAll(':', '')}`);
const IP4 = ['10.0.0.1', '10.16.0.5', '10.16.1.7', '192.168.1.1', '224.0.0.251', '255.255.255.255', '0.0.0.0'].map(ip4);
const IP6 = [
  (0xfd00n << 112n) | 1n,
  (0xfd00n << 112n) | 5n,
  (0xfe80n << 112n) | 1n,
  (0xff02n << 112n) | 1n,
  (0xff02n << 112n) | 0x1ff000005n,
  0n,
];
const MACS = [
  '0a:58:0a:10:00:05',
  'ff:ff:ff:ff:ff:ff',
  '01:00:5e:00:00:fb',
  '33:33:00:00:00:01',
  '00:00:00:00:00:00',
].map(mac);
const PORTS = [0n, 53n, 80n, 443n, 1024n, 2048n, 8080n, 65535n];
const CT = [0n, 0x21n, 0x22n, 0x2an, 0x24n, 0x30n, 0xa2n, 0x62n];

/** Interesting values per storage key; both constants and packets draw from them. */
const POOLS: Readonly<Record<MatchStorageKey, readonly bigint[]>> = {
  xxreg0: [0n, 1n, 1n << 96n, 5n << 64n],
  xxreg1: [0n, 1n, 1n << 96n],
  xreg4: [0n, 1n, 1n << 32n],
  flags: [0n, 1n, 1n << 9n, 1n << 16n],
  'pkt.mark': [0n, 1n],
  ct_state: CT,
  ct_mark: [0n, 1n, 2n, 0x10000n],
  ct_label: [0n, 1n, 2n, 1n << 96n],
  'eth.src': MACS,
  'eth.dst': MACS,
  'eth.type': [0x800n, 0x86ddn, 0x806n, 0x8035n, 0x8100n],
  'vlan.tci': [0n, 0x1005n, 0x7064n],
  'ip.proto': [1n, 2n, 6n, 17n, 58n, 132n],
  'ip.dscp': [0n, 10n, 46n],
  'ip.ecn': [0n, 1n, 3n],
  'ip.ttl': [1n, 64n, 255n],
  'ip.frag': [0n, 1n, 3n],
  'ip4.src': IP4,
  'ip4.dst': IP4,
  'ip6.src': IP6,
  'ip6.dst': IP6,
  'ip6.label': [0n, 1n, 0xfffffn],
  'icmp4.type': [0n, 3n, 8n, 11n],
  'icmp4.code': [0n, 1n],
  'icmp6.type': [128n, 129n, 133n, 134n, 135n, 136n, 143n],
  'icmp6.code': [0n, 1n],
  'arp.op': [1n, 2n],
  'arp.spa': IP4,
  'arp.tpa': IP4,
  'arp.sha': MACS,
  'arp.tha': MACS,
  'nd.target': IP6,
  'nd.sll': MACS,
  'nd.tll': MACS,
  'tcp.src': PORTS,
  'tcp.dst': PORTS,
  'tcp.flags': [0x2n, 0x12n, 0x10n, 0x4n],
  'udp.src': PORTS,
  'udp.dst': PORTS,
  'sctp.src': PORTS,
  'sctp.dst': PORTS,
};

const PORT_NAMES = ['p1', 'p2', 'web-0.default', ''];

/** Address-set names by the kind of field they suit, plus ones that fail (unknown, wrong family). */
const SETS_BY_KIND = {
  ip4: ['as4', 'as4b', 'pg1_ip4', 'empty'],
  ip6: ['as6', 'pg1_ip6', 'empty'],
  mac: ['asmac', 'empty'],
  num: ['asport', 'empty'],
};
const BAD_SETS = ['nope', 'as6', 'mixed'];
const GROUPS = ['pg1', 'pg2', 'pgempty'];

/** The environment the generated ASTs are meant for (fixed contents). */
export const SAMPLE_ENV: MatchEnv = {
  addressSets: new Map<string, readonly string[]>([
    ['as4', ['10.16.0.5', '10.16.0.0/16', '192.168.1.1']],
    ['as4b', ['10.0.0.1/32', '224.0.0.0/4', 'junk']],
    ['as6', ['fd00::/64', 'fe80::1']],
    ['asmac', ['0a:58:0a:10:00:05', 'ff:ff:ff:ff:ff:ff']],
    ['asport', ['80', '443', '1024']],
    ['empty', []],
    ['mixed', ['10.0.0.1', 'fd00::1']],
  ]),
  portGroups: new Map([
    ['pg1', ['p1', 'web-0.default']],
    ['pg2', ['p2']],
    ['pgempty', []],
  ]),
  portGroupAddresses: (pg, family) =>
    pg === 'pg1' ? (family === 4 ? ['10.16.0.5', '10.0.0.1'] : ['fd00::5']) : undefined,
};

/** Random contents under SAMPLE_ENV's names (same kinds of entries). */
export function matchEnvArbitrary(): fc.Arbitrary<MatchEnv> {
  const cidr4 = fc.tuple(fc.constantFrom(...IP4), fc.integer({ min: 0, max: 32 })).map(([v, p]) => `${fmt4(v)}/${p}`);
  const addr4 = fc.oneof(fc.constantFrom(...IP4).map(fmt4), cidr4);
  const list = <T>(a: fc.Arbitrary<T>) => fc.array(a, { maxLength: 4 });
  return fc
    .record({
      as4: list(addr4),
      as4b: list(addr4),
      as6: list(fc.constantFrom('fd00::/64', 'fe80::1', 'fd00::5', '::/0', 'ff02::/16')),
      asmac: list(fc.constantFrom('0a:58:0a:10:00:05', 'ff:ff:ff:ff:ff:ff', '01:00:00:00:00:00/01:00:00:00:00:00')),
      asport: list(fc.constantFrom('80', '443', '1024', '0x35', '0/0xff00')),
      pg1: list(fc.constantFrom(...PORT_NAMES)),
      pg2: list(fc.constantFrom(...PORT_NAMES)),
    })
    .map((r) => ({
      addressSets: new Map<string, readonly string[]>([
        ['as4', r.as4],
        ['as4b', r.as4b],
        ['as6', r.as6],
        ['asmac', r.asmac],
        ['asport', r.asport],
        ['empty', []],
        ['mixed', ['10.0.0.1', 'fd00::1']],
      ]),
      portGroups: new Map([
        ['pg1', r.pg1],
        ['pg2', r.pg2],
        ['pgempty', []],
      ]),
      portGroupAddresses: (pg: string, family: 4 | 6) => (pg === 'pg1' ? (family === 4 ? r.as4b : r.as6) : undefined),
    }));
}

const fmt4 = (v: bigint) => [24n, 16n, 8n, 0n].map((s) => (v >> s) & 255n).join('.');

const ones = (n: number) => (1n << BigInt(n)) - 1n;
const symbols = [...MATCH_SYMBOLS.values()];
const intSymbols = symbols.filter((s): s is IntSymbol => s.kind === 'int');
const ordinalSymbols = intSymbols.filter((s) => s.level === 'ordinal');

/** Values for a symbol: its storage pool seen through its offset and width, or random. */
function symbolValue(sym: IntSymbol): fc.Arbitrary<bigint> {
  const pool = [...new Set(POOLS[sym.storage].map((v) => (v >> BigInt(sym.offset)) & ones(sym.width)))];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pool) },
    { weight: 1, arbitrary: fc.bigInt(0n, ones(sym.width)) },
  );
}

function kindOf(sym: IntSymbol): keyof typeof SETS_BY_KIND {
  if (sym.width === 128) return 'ip6';
  if (sym.width === 48) return 'mac';
  return sym.width === 32 && /ip4|spa|tpa/.test(sym.storage) ? 'ip4' : 'num';
}

/** Formats a w-bit symbol's constant may be written in (the constant must not be wider than w). */
function formatsFor(w: number, v: bigint): IntFormat[] {
  const out: IntFormat[] = ['hex'];
  if (v < 1n << 64n) out.push('decimal');
  if (w >= 32 && v < 1n << 32n) out.push('ipv4');
  if (w >= 48 && v < 1n << 48n) out.push('mac');
  if (w >= 128) out.push('ipv6');
  return out;
}

function maskFor(format: IntFormat, w: number): fc.Arbitrary<bigint> {
  const prefix = (bits: number) =>
    fc.integer({ min: 0, max: bits }).map((p) => (p === 0 ? 0n : ones(p) << BigInt(bits - p)));
  switch (format) {
    case 'ipv4':
      return fc.oneof(prefix(32), fc.bigInt(0n, ones(32)));
    case 'ipv6':
      return prefix(128);
    case 'decimal':
      return fc.bigInt(0n, ones(Math.min(w, 64)));
    default:
      return fc.bigInt(0n, ones(Math.min(w, format === 'mac' ? 48 : w)));
  }
}

/** An integer constant valid for a w-bit symbol; `masked`: may carry a mask. */
function intConstant(sym: IntSymbol, masked: boolean): fc.Arbitrary<IntConstant> {
  return symbolValue(sym).chain((v) =>
    fc.constantFrom(...formatsFor(sym.width, v)).chain((format): fc.Arbitrary<IntConstant> => {
      const plain = fc.constant<IntConstant>({ kind: 'int', value: v, format });
      if (!masked) return plain;
      const withMask = maskFor(format, sym.width).map(
        (m): IntConstant => ({ kind: 'int', value: v & m, format, mask: m }),
      );
      return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: withMask });
    }),
  );
}

function addressSetFor(sym: IntSymbol): fc.Arbitrary<Constant> {
  return fc
    .oneof(
      { weight: 12, arbitrary: fc.constantFrom(...SETS_BY_KIND[kindOf(sym)]) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_SETS) },
    )
    .map((name) => ({ kind: 'address-set', name }));
}

/** `==`/`!=` right-hand side for an integer field: constant, `$set`, or `{…}` of those. */
function intValue(sym: IntSymbol): fc.Arbitrary<MatchValue> {
  const one = fc.oneof({ weight: 4, arbitrary: intConstant(sym, true) }, { weight: 1, arbitrary: addressSetFor(sym) });
  return fc.oneof(
    { weight: 3, arbitrary: one },
    {
      weight: 1,
      arbitrary: fc.array(one, { minLength: 1, maxLength: 4 }).map((items) => ({ kind: 'set' as const, items })),
    },
  );
}

const stringChars = fc.string({ maxLength: 8, unit: 'binary' }).filter((s) => !s.includes('\u0000'));

function stringValue(): fc.Arbitrary<MatchValue> {
  const one: fc.Arbitrary<Constant> = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...PORT_NAMES).map((value) => ({ kind: 'string' as const, value })) },
    { weight: 1, arbitrary: stringChars.map((value) => ({ kind: 'string' as const, value })) },
    { weight: 2, arbitrary: fc.constantFrom(...GROUPS, 'nopg').map((name) => ({ kind: 'port-group' as const, name })) },
  );
  return fc.oneof(
    { weight: 3, arbitrary: one },
    {
      weight: 1,
      arbitrary: fc.array(one, { minLength: 1, maxLength: 3 }).map((items) => ({ kind: 'set' as const, items })),
    },
  );
}

function fieldRefFor(sym: MatchSymbol): fc.Arbitrary<FieldRef> {
  if (sym.width === 0) return fc.constant({ name: sym.name });
  const full = fc.constant<FieldRef>({ name: sym.name, slice: { lo: 0, hi: sym.width - 1 } });
  if (sym.level !== 'ordinal')
    return fc.oneof({ weight: 6, arbitrary: fc.constant({ name: sym.name }) }, { weight: 1, arbitrary: full });
  const slice = fc
    .tuple(fc.integer({ min: 0, max: sym.width - 1 }), fc.integer({ min: 0, max: sym.width - 1 }))
    .map(([a, b]): FieldRef => ({ name: sym.name, slice: { lo: Math.min(a, b), hi: Math.max(a, b) } }));
  return fc.oneof({ weight: 4, arbitrary: fc.constant({ name: sym.name }) }, { weight: 1, arbitrary: slice });
}

/** A comparison OVN accepts at this negation parity. */
function cmpArb(neg: boolean): fc.Arbitrary<MatchExpr> {
  return fc.constantFrom(...symbols).chain((sym): fc.Arbitrary<MatchExpr> => {
    const positiveOp: RelOp = neg ? '!=' : '==';
    if (sym.kind === 'string')
      return stringValue().map((value) => ({ kind: 'cmp', field: { name: sym.name }, op: positiveOp, value }));
    if (sym.kind === 'predicate') {
      return fc
        .tuple(fc.constantFrom<RelOp>('==', '!='), fc.boolean(), fc.constantFrom<IntFormat>('decimal', 'hex'))
        .map(([op, bit, format]) => {
          // A nominal predicate must test positively: bit XOR (op is !=) XOR neg.
          const b = sym.level === 'nominal' ? ((op === '!=') !== neg) !== true : bit;
          return { kind: 'cmp', field: { name: sym.name }, op, value: { kind: 'int', value: b ? 1n : 0n, format } };
        });
    }
    const ops: RelOp[] = sym.level === 'nominal' ? [positiveOp] : ['==', '!=', '<', '<=', '>', '>='];
    return fc.tuple(fieldRefFor(sym), fc.constantFrom(...ops)).chain(([field, op]) => {
      const value: fc.Arbitrary<MatchValue> =
        op === '==' || op === '!='
          ? intValue(sym)
          : fc.oneof({ weight: 5, arbitrary: intConstant(sym, false) }, { weight: 1, arbitrary: addressSetFor(sym) });
      return value.map((v): MatchExpr => ({ kind: 'cmp', field, op, value: v }));
    });
  });
}

const rangeArb: fc.Arbitrary<MatchExpr> = fc.constantFrom(...ordinalSymbols).chain((sym) => {
  const bound = fc.record({
    value: fc.oneof(
      { weight: 6, arbitrary: intConstant(sym, false) },
      { weight: 1, arbitrary: addressSetFor(sym) },
    ) as fc.Arbitrary<IntConstant | { kind: 'address-set'; name: string }>,
    inclusive: fc.boolean(),
  });
  return fc
    .tuple(fieldRefFor(sym), bound, bound)
    .map(([field, low, high]): MatchExpr => ({ kind: 'range', field, low, high }));
});

/**
 * Bare fields: 1-bit fields and Boolean predicates always; nominal predicates only unnegated; wider fields only
 * negated.
 */
function bareArb(neg: boolean): fc.Arbitrary<MatchExpr> {
  const ok = symbols.filter((s) =>
    s.kind === 'predicate' ? s.level === 'boolean' || !neg : s.kind === 'int' && (s.width === 1 || neg),
  );
  const bit = fc
    .constantFrom(...ordinalSymbols)
    .chain((s) =>
      fc.integer({ min: 0, max: s.width - 1 }).map((k): FieldRef => ({ name: s.name, slice: { lo: k, hi: k } })),
    );
  const field = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ok).map((s): FieldRef => ({ name: s.name })) },
    { weight: 1, arbitrary: bit },
  );
  return field.map((f): MatchExpr => ({ kind: 'field', field: f }));
}

const memo = new Map<string, fc.Arbitrary<MatchExpr>>();

function exprArb(depth: number, neg: boolean): fc.Arbitrary<MatchExpr> {
  const key = `${depth}/${neg}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const leaf = fc.oneof(
    { weight: 1, arbitrary: fc.boolean().map((value): MatchExpr => ({ kind: 'bool', value })) },
    { weight: 8, arbitrary: cmpArb(neg) },
    { weight: 2, arbitrary: rangeArb },
    { weight: 3, arbitrary: bareArb(neg) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('p1', 'cr-lrp').map((port): MatchExpr => ({ kind: 'chassis-resident', port })),
    },
  );
  const arb: fc.Arbitrary<MatchExpr> =
    depth <= 0
      ? leaf
      : fc.oneof(
          { weight: 3, arbitrary: leaf },
          { weight: 1, arbitrary: exprArb(depth - 1, !neg).map((expr): MatchExpr => ({ kind: 'not', expr })) },
          ...(['and', 'or'] as const).map((kind) => ({
            weight: 2,
            arbitrary: fc
              .array(exprArb(depth - 1, neg), { minLength: 2, maxLength: 4 })
              .map((args): MatchExpr => ({ kind, args })),
          })),
        );
  memo.set(key, arb);
  return arb;
}

/** Valid match ASTs, nested up to `depth` (default 3) levels of `!`/`&&`/`||`. */
export function matchExprArbitrary(opts: { depth?: number } = {}): fc.Arbitrary<MatchExpr> {
  return exprArb(opts.depth ?? 3, false);
}

/** Packets over every storage key: pooled values mostly, random or absent sometimes; numbers or bigints. */
export function matchPacketArbitrary(): fc.Arbitrary<MatchPacket> {
  const entries = MATCH_STORAGE_KEYS.map((key) => {
    const w = intSymbols.find((s) => s.storage === key && s.parent === undefined)?.storageWidth ?? 32;
    const value = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...POOLS[key]) },
      { weight: 1, arbitrary: fc.bigInt(0n, ones(w)) },
    );
    const repr = fc.tuple(value, fc.boolean()).map(([v, asNumber]) => (asNumber && v < 1n << 53n ? Number(v) : v));
    return [key, fc.option(repr, { freq: 6, nil: undefined })] as const;
  });
  return fc
    .record({
      inport: fc.constantFrom(...PORT_NAMES),
      outport: fc.constantFrom(...PORT_NAMES),
      fields: fc.record(
        Object.fromEntries(entries) as Record<MatchStorageKey, fc.Arbitrary<number | bigint | undefined>>,
      ),
    })
    .map((r) => packetFromRecord(r));
}

const TOKENS = [
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '!',
  '&&',
  '||',
  '..',
  ',',
  ';',
  '=',
  '<->',
  '--',
  ':',
  '-',
  '&',
  '|',
  '/',
  '.',
  '^x',
  '$',
  '@',
  '$as4',
  '@pg1',
  '"p1"',
  '"a\\u00e9\\n"',
  '"\\q"',
  '"open',
  '/*c*/',
  '// c\n',
  '/*',
  '0',
  '1',
  '80',
  '007',
  '18446744073709551616',
  '0x',
  '0x1f',
  '0xzz',
  '10.0.0.1',
  '10.0.0.0/8',
  '10.0.0.0/0x1',
  'fe80::1',
  '::',
  '::1/64',
  '0a:58:0a:10:00:05',
  'ff:ff:ff:ff:ff:ff/01:00:00:00:00:00',
  '1.2.3.4:5',
  'ip4',
  'ip4.src',
  'tcp.dst',
  'tcp',
  'inport',
  'outport',
  'ct.est',
  'eth.type',
  'vlan.tci',
  'reg0',
  'xyzzy',
  'is_chassis_resident',
  'foo',
  '\u00e9',
  '\u0000',
  '\t',
];

/** Texts built from the grammar's tokens, joined with or without spaces: mostly invalid, often nearly valid. */
export function matchTokenSoupArbitrary(): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.constantFrom(...TOKENS), fc.constantFrom('', ' ', ' ', '  ')), { maxLength: 14 })
    .map((parts) => parts.map(([t, sep]) => t + sep).join(''));
}
