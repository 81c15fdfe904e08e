/**
 * Properties of the IPAM against a deliberately naive reference model
 * (sorted arrays and linear scans, every address as a bigint), on small
 * subnets so that exhaustion and the released-list swap happen often.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { formatIP, isLocalMAC, isMulticastMAC, maskV4, maskV6, tryParseIP, tryParseMAC } from '../addr/index.ts';
import { IPAM, type AllocateResult, type RandomBytes, type SubnetSpec, seededRandomBytes } from './index.ts';

type Fam = 4 | 6;
type FamSpec = { fam: Fam; net: bigint; size: bigint; gw: bigint; excl: [bigint, bigint][] };
type Op =
  | { k: 'alloc'; owner: number }
  | { k: 'release'; owner: number }
  | { k: 'static'; owner: number; fam: Fam; offset: number };

const ipText = (fam: Fam, v: bigint) => formatIP(fam === 4 ? { family: 4, value: Number(v) } : { family: 6, value: v });

/** A family of a small subnet: /26../29 for IPv4, /122../125 for IPv6, with random excludes and gateway. */
const famSpec = (fam: Fam): fc.Arbitrary<FamSpec> =>
  fc
    .record({
      raw:
        fam === 4
          ? fc.integer({ min: 0, max: 0xffffffff }).map(BigInt)
          : fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
      prefix: fam === 4 ? fc.integer({ min: 26, max: 29 }) : fc.integer({ min: 122, max: 125 }),
      gwPick: fc.option(fc.nat(), { nil: undefined }),
      excl: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 })), { maxLength: 3 }),
    })
    .map(({ raw, prefix, gwPick, excl }) => {
      const net = fam === 4 ? BigInt((Number(raw) & maskV4(prefix)) >>> 0) : raw & maskV6(prefix);
      const size = 1n << BigInt((fam === 4 ? 32 : 128) - prefix);
      const usable = fam === 4 ? size - 2n : size - 1n; // offsets 1..usable
      const gw = net + 1n + (gwPick === undefined ? 0n : BigInt(gwPick) % usable);
      const ex = excl.map(([s, len]): [bigint, bigint] => {
        const a = BigInt(s) % size;
        const b = a + BigInt(len) < size ? a + BigInt(len) : size - 1n;
        return [net + a, net + b];
      });
      return { fam, net, size, gw, excl: ex };
    });

const subnetArb = fc.oneof(
  famSpec(4).map((f) => [f]),
  famSpec(6).map((f) => [f]),
  fc.tuple(famSpec(4), famSpec(6)).map(([a, b]) => [a, b]),
);

const opArb = (maxOwner: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.record({ k: fc.constant('alloc' as const), owner: fc.nat({ max: maxOwner }) }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('release' as const), owner: fc.nat({ max: maxOwner }) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('static' as const),
        owner: fc.nat({ max: maxOwner }),
        fam: fc.constantFrom<Fam>(4, 6),
        offset: fc.nat({ max: 70 }),
      }),
    },
  );

function toSpec(name: string, fams: FamSpec[]): SubnetSpec {
  return {
    name,
    cidrBlock: fams
      .map((f) => `${ipText(f.fam, f.net)}/${(f.fam === 4 ? 32 : 128) - (f.size.toString(2).length - 1)}`)
      .join(','),
    gateway: fams.map((f) => ipText(f.fam, f.gw)).join(','),
    excludeIps: fams.flatMap((f) =>
      f.excl.map(([a, b]) => (a === b ? ipText(f.fam, a) : `${ipText(f.fam, a)}..${ipText(f.fam, b)}`)),
    ),
  };
}

/** Kube-OVN's rules, written the obvious way. */
class Model {
  readonly fams = new Map<
    Fam,
    { spec: FamSpec; fixed: Set<bigint>; excl: Set<bigint>; free: bigint[]; released: bigint[]; used: number }
  >();
  readonly leases = new Map<string, Map<Fam, bigint>>();
  readonly staticOwners = new Set<string>();

  constructor(specs: FamSpec[]) {
    for (const s of specs) {
      const last = s.net + s.size - 1n;
      const fixed = new Set([s.net, s.gw, ...(s.fam === 4 ? [last] : [])]);
      const excl = new Set<bigint>();
      for (const [a, b] of s.excl) for (let v = a; v <= b; v++) excl.add(v);
      const free: bigint[] = [];
      for (let v = s.net; v <= last; v++) if (!fixed.has(v) && !excl.has(v)) free.push(v);
      this.fams.set(s.fam, { spec: s, fixed, excl, free, released: [], used: 0 });
    }
  }

  holder(fam: Fam, v: bigint): string | undefined {
    for (const [o, l] of this.leases) if (l.get(fam) === v) return o;
    return undefined;
  }

  alloc(owner: string): Map<Fam, bigint> | string {
    const cur = this.leases.get(owner);
    if (cur) return cur;
    if ([...this.fams.values()].some((f) => f.free.length === 0 && f.released.length === 0)) return 'exhausted';
    const lease = new Map<Fam, bigint>();
    for (const [fam, f] of this.fams) {
      if (f.free.length === 0) [f.free, f.released] = [f.released, []];
      lease.set(fam, f.free.shift()!);
      f.used++;
    }
    this.leases.set(owner, lease);
    return lease;
  }

  static(owner: string, fam: Fam, v: bigint): Map<Fam, bigint> | string {
    const f = this.fams.get(fam);
    if (!f) return 'family-mismatch';
    if (v < f.spec.net || v >= f.spec.net + f.spec.size) return 'out-of-range';
    if (f.fixed.has(v)) return 'reserved';
    const h = this.holder(fam, v);
    if (h !== undefined && h !== owner) return `conflict:${h}`;
    const cur = this.leases.get(owner);
    if (!cur) {
      const others = [...this.fams].filter(([k]) => k !== fam);
      if (others.some(([, o]) => o.free.length === 0 && o.released.length === 0)) return 'exhausted';
      const lease = new Map<Fam, bigint>();
      for (const [k, o] of this.fams) {
        if (k === fam) this.claim(fam, v);
        else {
          if (o.free.length === 0) [o.free, o.released] = [o.released, []];
          lease.set(k, o.free.shift()!);
          o.used++;
        }
      }
      lease.set(fam, v);
      this.leases.set(owner, lease);
      this.staticOwners.add(owner);
      return lease;
    }
    if (cur.get(fam) !== v) {
      this.giveBack(fam, cur.get(fam)!);
      this.claim(fam, v);
      cur.set(fam, v);
      this.staticOwners.add(owner);
    }
    return cur;
  }

  release(owner: string): void {
    const cur = this.leases.get(owner);
    if (!cur) return;
    for (const [fam, v] of cur) this.giveBack(fam, v);
    this.leases.delete(owner);
    this.staticOwners.delete(owner);
  }

  counters(fam: Fam): { used: number; available: number } {
    const f = this.fams.get(fam)!;
    return { used: f.used, available: f.free.length + f.released.length };
  }

  private claim(fam: Fam, v: bigint): void {
    const f = this.fams.get(fam)!;
    f.used++;
    if (f.excl.has(v)) return;
    f.free = f.free.filter((x) => x !== v);
    f.released = f.released.filter((x) => x !== v);
  }

  private giveBack(fam: Fam, v: bigint): void {
    const f = this.fams.get(fam)!;
    f.used--;
    if (f.excl.has(v)) return;
    f.released = [...f.released, v].sort((a, b) => (a < b ? -1 : 1));
  }
}

/** The IPAM result in the model's shape. */
function observed(r: AllocateResult): Map<Fam, bigint> | string {
  if (!r.ok)
    return r.error.code === 'conflict' ? `conflict:${(r.error as unknown as { owner: string }).owner}` : r.error.code;
  const m = new Map<Fam, bigint>();
  if (r.lease.v4 !== undefined) m.set(4, BigInt(r.lease.v4));
  if (r.lease.v6 !== undefined) m.set(6, r.lease.v6);
  return m;
}

/**
 * The address a static op asks for; an address of a family the subnet lacks, or past the family's end, stays out of
 * range.
 */
function staticAsk(op: Extract<Op, { k: 'static' }>, fams: FamSpec[]): { text: string; v?: bigint } {
  const f = fams.find((x) => x.fam === op.fam);
  if (!f) return { text: op.fam === 4 ? '192.0.2.1' : '2001:db8::1' };
  let v = f.net + BigInt(op.offset);
  if (v > (op.fam === 4 ? 0xffffffffn : (1n << 128n) - 1n)) v = f.net - 1n;
  return { text: ipText(op.fam, v), v };
}

function run(ipam: IPAM, op: Op, fams: FamSpec[]): AllocateResult | undefined {
  const owner = `pod-${op.owner}.ns`;
  if (op.k === 'alloc') return ipam.allocate({ subnet: 's', owner });
  if (op.k === 'release') {
    ipam.release(owner);
    return undefined;
  }
  return ipam.allocate({ subnet: 's', owner, ips: staticAsk(op, fams).text });
}

/** A byte source that counts its calls, and a copy advanced to the same point. */
function counted(seed: number): { random: RandomBytes; calls: () => number } {
  const inner = seededRandomBytes(seed);
  let calls = 0;
  return { random: (out) => (calls++, inner(out)), calls: () => calls };
}
function advanced(seed: number, calls: number): RandomBytes {
  const r = seededRandomBytes(seed);
  const buf = new Uint8Array(6);
  for (let i = 0; i < calls; i++) r(buf);
  return r;
}

function newIpam(fams: FamSpec[], random: RandomBytes): IPAM {
  const ipam = new IPAM({ random });
  const r = ipam.setSubnet(toSpec('s', fams));
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return ipam;
}

/** Invariants that hold whatever happened: one holder per address and MAC, addresses where they may be. */
function checkInvariants(ipam: IPAM, fams: FamSpec[], staticOwners: Set<string>): void {
  const seen = new Set<string>();
  const macs = new Set<number>();
  for (const rec of ipam.snapshot()) {
    expect(rec.ips.length).toBe(fams.length); // one address per family
    for (const text of rec.ips) {
      expect(seen.has(text)).toBe(false);
      seen.add(text);
      const ip = tryParseIP(text)!;
      const f = fams.find((x) => x.fam === ip.family)!;
      const v = BigInt(ip.value);
      expect(v >= f.net && v < f.net + f.size).toBe(true);
      expect(v === f.net || v === f.gw || (f.fam === 4 && v === f.net + f.size - 1n)).toBe(false);
      if (!staticOwners.has(rec.owner)) expect(f.excl.some(([a, b]) => a <= v && v <= b)).toBe(false);
    }
    const mac = tryParseMAC(rec.mac!)!;
    expect(macs.has(mac)).toBe(false);
    macs.add(mac);
    expect(isLocalMAC(mac) && !isMulticastMAC(mac)).toBe(true);
  }
}

function countersOf(ipam: IPAM, fam: Fam): { used: number; available: number } | undefined {
  const c = ipam.counters('s')!;
  const x = fam === 4 ? c.v4 : c.v6;
  return x && { used: Number(x.used), available: Number(x.available) };
}

describe('IPAM properties', () => {
  it('matches the reference model: same results, exact counters, no address held twice, nothing reserved handed out', () => {
    fc.assert(
      fc.property(subnetArb, fc.array(opArb(15), { maxLength: 120 }), (fams, ops) => {
        const ipam = newIpam(fams, seededRandomBytes(1));
        const model = new Model(fams);
        for (const op of ops) {
          const r = run(ipam, op, fams);
          const owner = `pod-${op.owner}.ns`;
          if (op.k === 'alloc') expect(observed(r!)).toEqual(model.alloc(owner));
          else if (op.k === 'release') model.release(owner);
          else {
            const ask = staticAsk(op, fams);
            expect(observed(r!)).toEqual(ask.v === undefined ? 'family-mismatch' : model.static(owner, op.fam, ask.v));
          }
          for (const f of fams) expect(countersOf(ipam, f.fam)).toEqual(model.counters(f.fam));
          expect(ipam.size).toBe(model.leases.size);
        }
        checkInvariants(ipam, fams, model.staticOwners);
      }),
      fcParams(200),
    );
  });

  it('restore(snapshot(x)) behaves like x: the same results for every later operation', () => {
    fc.assert(
      fc.property(
        subnetArb,
        fc.array(opArb(12), { maxLength: 60 }),
        fc.array(opArb(12), { maxLength: 60 }),
        (fams, before, after) => {
          const src = counted(11);
          const x = newIpam(fams, src.random);
          for (const op of before) run(x, op, fams);
          const y = newIpam(fams, advanced(11, src.calls()));
          expect(y.restore(x.snapshot(), { released: x.released() })).toEqual([]);
          expect(y.snapshot()).toEqual(x.snapshot());
          expect(y.counters('s')).toEqual(x.counters('s'));
          for (const op of after) {
            const rx = run(x, op, fams);
            const ry = run(y, op, fams);
            expect(ry && (ry.ok ? ry.lease : ry.error.code)).toEqual(rx && (rx.ok ? rx.lease : rx.error.code));
            expect(y.counters('s')).toEqual(x.counters('s'));
          }
          expect(y.snapshot()).toEqual(x.snapshot());
        },
      ),
      fcParams(150),
    );
  });

  it('restore(snapshot(x)) alone keeps every lease and the counters', () => {
    fc.assert(
      fc.property(subnetArb, fc.array(opArb(12), { maxLength: 80 }), (fams, ops) => {
        const x = newIpam(fams, seededRandomBytes(2));
        for (const op of ops) run(x, op, fams);
        const y = newIpam(fams, seededRandomBytes(3));
        expect(y.restore(x.snapshot())).toEqual([]);
        expect(y.snapshot()).toEqual(x.snapshot());
        expect(y.counters('s')).toEqual(x.counters('s'));
      }),
      fcParams(150),
    );
  });

  it('gives each owner exactly one address per family in dual-stack subnets, next to single-stack ones', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ subnet: fc.constantFrom('d', 'v4', 'v6'), owner: fc.nat({ max: 30 }), release: fc.boolean() }),
          { maxLength: 150 },
        ),
        (ops) => {
          const ipam = new IPAM({ random: seededRandomBytes(4) });
          ipam.setSubnet({ name: 'd', cidrBlock: '10.0.0.0/27,fd00::/123' });
          ipam.setSubnet({ name: 'v4', cidrBlock: '10.1.0.0/27' });
          ipam.setSubnet({ name: 'v6', cidrBlock: 'fd01::/123' });
          for (const op of ops) {
            const owner = `pod-${op.owner}.${op.subnet}`;
            if (op.release) ipam.release(owner);
            else ipam.allocate({ subnet: op.subnet, owner });
          }
          for (const rec of ipam.snapshot()) {
            const fams = rec.ips.map((t) => tryParseIP(t)!.family).sort();
            expect(fams).toEqual(rec.subnet === 'd' ? [4, 6] : rec.subnet === 'v4' ? [4] : [6]);
          }
          const d = ipam.counters('d')!;
          expect(d.v4!.used).toBe(Number(d.v6!.used));
        },
      ),
      fcParams(150),
    );
  });
});
