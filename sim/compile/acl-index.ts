/**
 * ACL indexing. An ACL whose match is a top-level `&&` (or a single
 * comparison) with a conjunct `inport == <ports>`, `outport == <ports>`,
 * `ip4.src == <addresses>` or `ip4.dst == <addresses>` can only match packets
 * with such a value, so it is filed under each of those values: every
 * NetworkPolicy ACL Kube-OVN writes (`outport == @pg && ...`), the node ACLs
 * (`ip4.src == <node IP> && ...`) and the gateway allow-stateless ACLs
 * (`ip4.src == <gateway>`). A packet then evaluates the ACLs filed under its
 * own ports and addresses plus the few that name none, instead of every ACL
 * of the switch. Router policies (`ip4.dst == <subnet>` allows) are indexed
 * the same way.
 *
 * The index never changes the order: each ACL has a rank (its position in
 * the stage's full priority order) and candidates are merged by rank, so
 * the ACLs a packet matches come in exactly the order a scan of every ACL
 * would find them (acl-index.test.ts holds it to that).
 */
import type { IntConstant, MatchEnv, MatchExpr, MatchValue } from '../../model/match/index.ts';
import { addressSetValues } from '../../model/match/env.ts';
import type { AclRule, AclRequirement, IpBuckets, RuleIndex } from './types.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { appendAll } from '../../model/append.ts';

type PortField = 'inport' | 'outport';
type IpField = 'ip4.src' | 'ip4.dst';

function portsOfValue(v: MatchValue, portGroups: ReadonlyMap<string, readonly string[]>): Set<string> | undefined {
  const out = new Set<string>();
  const items = v.kind === 'set' ? v.items : [v];
  for (const c of items) {
    if (c.kind === 'string') out.add(c.value);
    else if (c.kind === 'port-group') for (const p of portGroups.get(c.name) ?? []) out.add(p);
    else return undefined;
  }
  return out;
}

const FULL32 = 0xffffffffn;

type IpValues = { mask: number; values: Set<number> } | undefined;

/** ipsOfValue of `== $set`, by the set's parsed values (the same array while the set's row is unchanged). */
const ipsOfSet = new WeakMap<readonly IntConstant[], IpValues | null>();

/** The IPv4 values of a comparison, all under one mask; undefined if that is not what it is. */
function ipsOfValue(v: MatchValue, env: MatchEnv): IpValues {
  if (v.kind === 'address-set') {
    const set = addressSetValues(env, v.name);
    if (set === undefined) return ipsOfConsts([]);
    let hit = ipsOfSet.get(set);
    if (hit === undefined) ipsOfSet.set(set, (hit = ipsOfConsts(set) ?? null));
    return hit ?? undefined;
  }
  const consts: IntConstant[] = [];
  for (const c of v.kind === 'set' ? v.items : [v]) {
    if (c.kind === 'int') consts.push(c);
    else if (c.kind === 'address-set') appendAll(consts, addressSetValues(env, c.name) ?? []);
    else return undefined;
  }
  return ipsOfConsts(consts);
}

function ipsOfConsts(consts: readonly IntConstant[]): IpValues {
  let mask: bigint | undefined;
  const values = new Set<number>();
  for (const c of consts) {
    const m = c.mask ?? FULL32;
    // Wider than 32 bits: the match fails OVN's checks and never matches; leave it unindexed.
    if (c.value > FULL32 || m > FULL32) return undefined;
    if (mask !== undefined && m !== mask) return undefined;
    mask = m;
    values.add(Number(c.value & m));
  }
  // An empty set (`ip4.src == $empty`) is false: filed under no value, the ACL is never a candidate.
  return { mask: Number(mask ?? FULL32), values };
}

/** How many packets' values a requirement admits: ports, or addresses (a /16 admits 65,536). */
function coverage(r: AclRequirement): number {
  if (r.kind === 'port') return r.ports.size;
  let hostBits = 0;
  for (let m = ~r.mask >>> 0; m !== 0; m >>>= 1) hostBits++;
  return r.values.size * 2 ** hostBits;
}

/**
 * The most selective requirement of a match (admitting the fewest values):
 * a top-level conjunct `inport|outport == <ports>` or `ip4.src|ip4.dst ==
 * <IPv4 addresses>` (one mask for all of them). Port groups are read as
 * their members on this switch, address sets from `env`.
 *
 * @example aclRequirement(parseMatch('outport == @pg && ip4'), pgs, env) // { kind: 'port', field: 'outport', ports: {...} }
 */
export function aclRequirement(
  expr: MatchExpr,
  portGroups: ReadonlyMap<string, readonly string[]>,
  env: MatchEnv,
): AclRequirement | undefined {
  const conjuncts = expr.kind === 'and' ? expr.args : [expr];
  let best: AclRequirement | undefined;
  for (const c of conjuncts) {
    if (c.kind !== 'cmp' || c.op !== '==' || c.field.slice !== undefined) continue;
    let req: AclRequirement | undefined;
    const name = c.field.name;
    if (name === 'inport' || name === 'outport') {
      const ports = portsOfValue(c.value, portGroups);
      if (ports !== undefined) req = { kind: 'port', field: name as PortField, ports };
    } else if (name === 'ip4.src' || name === 'ip4.dst') {
      const ips = ipsOfValue(c.value, env);
      if (ips !== undefined) req = { kind: 'ip', field: name as IpField, mask: ips.mask, values: ips.values };
    }
    if (req !== undefined && (best === undefined || coverage(req) < coverage(best))) best = req;
  }
  return best;
}

function push<K>(m: Map<K, number[]>, k: K, rank: number): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [rank]);
  else if (list[list.length - 1] !== rank) list.push(rank);
}

function bucketsFor(all: IpBuckets[], mask: number): IpBuckets {
  let b = all.find((x) => x.mask === mask);
  if (b === undefined) {
    b = { mask, byValue: new Map(), filter: new Uint32Array(32) };
    all.push(b);
  }
  return b;
}

/** A value's bit in a bucket filter (a multiplicative hash: masked values differ in their high bits). */
const bit = (v: number): number => Math.imul(v, 0x9e3779b1) >>> 22;

/**
 * Build the index of one stage's ACLs, given in the order they are to be
 * tried (highest priority first, ties as the caller orders them).
 */
export function indexAcls<R extends { readonly req?: AclRequirement | undefined }>(rules: readonly R[]): RuleIndex<R> {
  const byInport = new Map<string, number[]>();
  const byOutport = new Map<string, number[]>();
  const bySrc: IpBuckets[] = [];
  const byDst: IpBuckets[] = [];
  const rest: number[] = [];
  rules.forEach((r, rank) => {
    const req = r.req;
    if (req === undefined) rest.push(rank);
    else if (req.kind === 'port')
      for (const p of req.ports) push(req.field === 'inport' ? byInport : byOutport, p, rank);
    else {
      const b = bucketsFor(req.field === 'ip4.src' ? bySrc : byDst, req.mask);
      for (const v of req.values) {
        push(b.byValue as Map<number, number[]>, v, rank);
        const h = bit(v);
        b.filter[h >>> 5]! |= 1 << (h & 31);
      }
    }
  });
  return { rules, byInport, byOutport, bySrc, byDst, rest };
}

/** ACL order within a stage: priority, then row key (OVS would pick either on a tie; this is our fixed pick). */
export const byPriorityThenKey = (a: AclRule, b: AclRule): number =>
  b.priority - a.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

const NONE: readonly number[] = [];

/**
 * Reusable space for gathering candidate lists (one per simulation run):
 * the first `n` of `lists` are this call's (never truncated: setting an
 * array's length is a runtime call).
 */
export interface AclScratch {
  n: number;
  readonly lists: (readonly number[])[];
  readonly pos: number[];
}

export const newAclScratch = (): AclScratch => ({ n: 0, lists: [], pos: [] });

function addIpLists(all: readonly IpBuckets[], ip: number, s: AclScratch): void {
  for (let i = 0; i < all.length; i++) {
    const b = all[i]!;
    const v = (ip & b.mask) >>> 0;
    const h = bit(v);
    if ((b.filter[h >>> 5]! & (1 << (h & 31))) === 0) continue;
    const l = b.byValue.get(v);
    if (l !== undefined) s.lists[s.n++] = l;
  }
}

/** k-way merge of the scratch's rank lists (each ascending, pairwise disjoint). */
function merge(s: AclScratch): number[] {
  const { lists, pos } = s;
  const out: number[] = [];
  const k = s.n;
  for (let i = 0; i < k; i++) pos[i] = 0;
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i < k; i++) {
      const l = lists[i]!;
      const p = pos[i]!;
      if (p < l.length && l[p]! < bestRank) {
        bestRank = l[p]!;
        best = i;
      }
    }
    if (best < 0) return out;
    out.push(bestRank);
    pos[best]!++;
  }
}

/**
 * The ranks (into `index.rules`) of the ACLs a packet from `inport` to
 * `outport` might match, ascending: those filed under its ports and IPv4
 * addresses and those that require none. The result is one of the index's
 * own lists or a new merged one; do not change it.
 *
 * @example for (const rank of candidateAcls(dp.acls.in, ctx.inport, ctx.outport, ctx.packet, scratch)) index.rules[rank]
 */
export function candidateAcls(
  index: RuleIndex<unknown>,
  inport: string,
  outport: string,
  p: Packet,
  scratch: AclScratch,
): readonly number[] {
  const s = scratch;
  s.n = 0;
  const a = index.byInport.size === 0 ? undefined : index.byInport.get(inport);
  if (a !== undefined) s.lists[s.n++] = a;
  const b = outport === '' || index.byOutport.size === 0 ? undefined : index.byOutport.get(outport);
  if (b !== undefined) s.lists[s.n++] = b;
  if (index.rest.length > 0) s.lists[s.n++] = index.rest;
  // A non-IPv4 packet reads these fields as 0 and fails the `ip4` prerequisite: a superset is harmless.
  if (index.bySrc.length > 0) addIpLists(index.bySrc, p['ip4.src'] ?? 0, s);
  if (index.byDst.length > 0) addIpLists(index.byDst, p['ip4.dst'] ?? 0, s);
  if (s.n === 0) return NONE;
  if (s.n === 1) return s.lists[0]!;
  return merge(s);
}
