/**
 * A drawn {@link MatchSpec} → an OVN match over the fields ACLs and router
 * policies use: address family, addresses and CIDRs (equal and not equal),
 * address sets and the derived `$pg_ip4`, port groups and port names, L4
 * protocols, ports, port ranges and sets, ICMP type. Operands are picked
 * from what the topology holds, so matches hit real traffic.
 */
import { type MatchExpr, parseMatch, tryParseMatch } from '../../model/match/index.ts';
import type { MatchSpec } from './spec.ts';

export interface MatchPools {
  readonly v4: readonly string[];
  readonly v6: readonly string[];
  /** Address set names with their family. */
  readonly addressSets: readonly { readonly name: string; readonly v6: boolean }[];
  readonly portGroups: readonly string[];
  readonly ports: readonly string[];
}

export const L4_PORTS = [80, 8080, 22, 53, 443, 5000] as const;
const RANGES: readonly (readonly [number, number])[] = [
  [1, 1023],
  [80, 443],
  [1024, 65535],
  [8000, 8100],
  [50, 60],
];
const L4 = ['tcp', 'udp', 'sctp'] as const;
const PROTOS = ['tcp', 'udp', 'sctp', 'icmp4', 'icmp6', 'icmp4 && icmp4.type == 8', 'arp'] as const;

const at = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

function eq(field: string, value: string | number, neg: boolean): string {
  return `${field} ${neg ? '!=' : '=='} ${value}`;
}

type Atom = { kind: number; a: number; b: number; neg: boolean };

function addressAtom(pools: MatchPools, t: Atom, fam: 4 | 6, dir: 'src' | 'dst'): string {
  const pool = fam === 4 ? pools.v4 : pools.v6;
  const x = at(pool, t.a);
  return x === undefined ? `ip${fam}` : eq(`ip${fam}.${dir}`, x, t.neg);
}

/** One conjunct; `ports` allows inport/outport atoms (ACLs, not router policies). */
function atomText(pools: MatchPools, t: Atom, ports: boolean): string {
  const dir = t.b % 2 === 0 ? 'src' : 'dst';
  switch (t.kind % 12) {
    case 0:
      return t.a % 2 === 0 ? 'ip4' : 'ip6';
    case 1:
      return addressAtom(pools, t, 4, 'src');
    case 2:
      return addressAtom(pools, t, 4, 'dst');
    case 3:
      return PROTOS[t.a % PROTOS.length] ?? 'ip4';
    case 4:
      return eq(`${L4[t.a % 3]}.dst`, L4_PORTS[t.b % L4_PORTS.length]!, t.neg);
    case 5: {
      const [lo, hi] = RANGES[t.b % RANGES.length]!;
      return `${lo} <= ${L4[t.a % 3]}.dst <= ${hi}`;
    }
    case 6: {
      const as = at(pools.addressSets, t.a);
      return as === undefined ? 'ip4' : eq(`ip${as.v6 ? 6 : 4}.${dir}`, `$${as.name}`, t.neg);
    }
    case 7: {
      if (!ports) return 'ip4';
      const field = t.b % 2 === 0 ? 'inport' : 'outport';
      const pg = at(pools.portGroups, t.a);
      const port = at(pools.ports, t.a);
      if (t.b % 4 < 2 && pg !== undefined) return eq(field, `@${pg}`, false);
      return port === undefined ? 'ip4' : eq(field, JSON.stringify(port), t.neg);
    }
    case 8: {
      const pg = at(pools.portGroups, t.a);
      return pg === undefined ? 'ip4' : eq(`ip4.${dir}`, `$${pg}_ip4`, t.neg);
    }
    case 9:
      return addressAtom(pools, t, 6, dir);
    case 10:
      return eq(`${L4[t.a % 3]}.src`, L4_PORTS[t.b % L4_PORTS.length]!, t.neg);
    default: {
      if (t.b % 2 === 0) return `${L4[t.a % 3]}.dst == {80, 443, 8080}`;
      const x = at(pools.v4, t.a);
      const y = at(pools.v4, t.a + t.b + 1);
      return x === undefined || y === undefined ? 'ip4' : eq('ip4.dst', `{${x}, ${y}}`, t.neg);
    }
  }
}

/** The match text for a spec (always a parseable OVN match). */
export function matchText(spec: MatchSpec, pools: MatchPools, ports: boolean): string {
  const atoms = spec.atoms.map((t) => atomText(pools, t, ports));
  if (atoms.length === 0) return 'ip4';
  if (spec.or && atoms.length >= 2) {
    const [a, b, ...rest] = atoms;
    return [`(${a} || ${b})`, ...rest].join(' && ');
  }
  return atoms.join(' && ');
}

/**
 * @example matchOf({ atoms: [{ kind: 4, a: 0, b: 0, neg: false }], or: false }, pools, true) // tcp.dst == 80
 */
export function matchOf(spec: MatchSpec, pools: MatchPools, ports: boolean): MatchExpr {
  const r = tryParseMatch(matchText(spec, pools, ports));
  return r.ok ? r.expr : parseMatch('ip4');
}
