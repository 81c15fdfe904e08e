/**
 * Allocation: Kube-OVN's rules for picking addresses and a MAC for an owner.
 * Every check runs before the first change, so a refused request leaves the
 * state untouched.
 */
import { formatIP, formatMAC, tryParseIP, tryParseMAC, isMulticastMAC } from '../addr/index.ts';
import { Conflict, IpamError, type IssuePath, q } from './errors.ts';
import { parseIpPoolAnnotation } from './ip-pool-annotation.ts';
import { macFromBytes } from './random.ts';
import type { AllocateResult, IpamState } from './state.ts';
import type { SubnetAllocator } from './subnet.ts';

export type AllocateRequest = {
  readonly subnet: string;
  /** `<pod>.<namespace>[.<provider>]` (see `ownerKey`); one lease per owner, IPAM-wide. */
  readonly owner: string;
  /** Requested addresses, as the `ip_address` annotation: "v4", "v6" or "v4,v6". */
  readonly ips?: string;
  /** Requested MAC, as the `mac_address` annotation. */
  readonly mac?: string;
  /** The `ip_pool` annotation: an IPPool name, or a list of addresses. */
  readonly ipPool?: string;
  /** The pod's namespace: IPPools bound to it are used when nothing else is asked. */
  readonly namespace?: string;
  /** A StatefulSet pod's ordinal: it takes that entry of an `ipPool` address list. */
  readonly ordinal?: number;
  /**
   * One family only (the `ip_family` annotation): on a dual-stack subnet the
   * lease holds that family's address alone (one of the other family held
   * before is given back); a subnet without it refuses the request.
   */
  readonly family?: 4 | 6;
};

/** Requested addresses per family, and the pool the other families come from. */
type Target = { v4?: number; v6?: bigint; pool: number };

/** Nothing requested, default pool: shared, so the hot path allocates no target object. */
const DEFAULT_TARGET: Readonly<Target> = Object.freeze({ pool: 0 });

const fail = (error: IpamError): AllocateResult => ({ ok: false, error });

export function allocate(st: IpamState, req: AllocateRequest): AllocateResult {
  const sub = st.subnets.get(req.subnet);
  if (sub === undefined)
    return fail(new IpamError('unknown-subnet', req.subnet, `subnet ${q(req.subnet)} does not exist`, ['subnet']));
  const wrong = familyError(sub, req);
  if (wrong !== undefined) return fail(wrong);
  const slot = st.store.slotOf(req.owner);
  if (slot >= 0) return renew(st, sub, slot, req);
  let mac: number | undefined;
  if (req.mac !== undefined) {
    const m = requestedMac(st, sub, req, -1);
    if (m instanceof IpamError) return fail(m);
    mac = m;
  }
  const plain =
    req.ips === undefined && req.ipPool === undefined && !(req.namespace !== undefined && sub.hasNamespacePools);
  const target = plain ? DEFAULT_TARGET : resolveTarget(st, sub, req, -1);
  if (target instanceof IpamError) return fail(target);
  return commitNew(st, sub, req.owner, target, mac, req.family);
}

/** Kube-OVN's validateRequestedIPFamilyForSubnet, and a requested address of the other family (ValidatePodNetwork). */
function familyError(sub: SubnetAllocator, req: AllocateRequest): IpamError | undefined {
  if (req.family === undefined) return undefined;
  const name = `IPv${req.family}`;
  if ((req.family === 4 ? sub.v4 : sub.v6) === undefined)
    return new IpamError(
      'family-mismatch',
      sub.name,
      `requested ip family ${name} does not match subnet ${q(sub.name)}: it has no ${name} CIDR`,
      ['family'],
    );
  const other = (req.ips ?? '').split(',').find((t) => {
    const ip = tryParseIP(t.trim());
    return ip !== undefined && ip.family !== req.family;
  });
  if (other !== undefined)
    return new IpamError('family-mismatch', sub.name, `${other} does not match ip family ${name}`, ['ips']);
  return undefined;
}

function commitNew(
  st: IpamState,
  sub: SubnetAllocator,
  owner: string,
  t: Readonly<Target>,
  requestedMac: number | undefined,
  family: 4 | 6 | undefined,
): AllocateResult {
  const s4 = family === 6 ? undefined : sub.v4;
  const s6 = family === 4 ? undefined : sub.v6;
  if ((s4 && t.v4 === undefined && !s4.hasRoom(t.pool)) || (s6 && t.v6 === undefined && !s6.hasRoom(t.pool)))
    return fail(exhausted(sub, t.pool));
  const mac = requestedMac ?? newMac(st, sub);
  if (mac instanceof IpamError) return fail(mac);
  let v4: number | undefined;
  let v6: bigint | undefined;
  if (s4) {
    if (t.v4 === undefined) v4 = s4.take(t.pool);
    else s4.claim((v4 = t.v4));
  }
  if (s6) {
    if (t.v6 === undefined) v6 = s6.take(t.pool);
    else s6.claim((v6 = t.v6));
  }
  st.store.add(owner, sub.id, v4, v6, mac);
  return { ok: true, lease: { owner, subnet: sub.name, v4, v6, mac } };
}

/** An owner that already holds a lease: the same lease again, unless it asks for other addresses. */
function renew(st: IpamState, sub: SubnetAllocator, slot: number, req: AllocateRequest): AllocateResult {
  const { store } = st;
  if (store.sidOf(slot) !== sub.id) {
    const other = st.byId.get(store.sidOf(slot))!.name;
    return fail(
      new IpamError(
        'owner-in-other-subnet',
        sub.name,
        `owner ${q(req.owner)} holds a lease in subnet ${q(other)}; release it before allocating in subnet ${q(sub.name)}`,
        ['owner'],
      ),
    );
  }
  const cur4 = store.v4Of(slot);
  const cur6 = store.v6Of(slot);
  let t: Readonly<Target> | IpamError = DEFAULT_TARGET;
  if (req.ips !== undefined || (req.ipPool !== undefined && !holdsListedAddress(req, cur4, cur6)))
    t = resolveTarget(st, sub, req, slot);
  if (t instanceof IpamError) return fail(t);
  const want4 = t.v4 ?? cur4;
  const want6 = t.v6 ?? cur6;
  // One family asked for (ip_family): the other's address, if held, is given back.
  const s4 = req.family === 6 ? undefined : sub.v4;
  const s6 = req.family === 4 ? undefined : sub.v6;
  // A family the lease lacks (the subnet became dual stack) comes from the pool.
  if ((s4 && want4 === undefined && !s4.hasRoom(t.pool)) || (s6 && want6 === undefined && !s6.hasRoom(t.pool)))
    return fail(exhausted(sub, t.pool));
  let mac = store.macOf(slot);
  if (req.mac !== undefined) {
    const m = requestedMac(st, sub, req, slot);
    if (m instanceof IpamError) return fail(m);
    if (m !== mac) store.setMac(slot, (mac = m));
  }
  if (s4 === undefined && sub.v4 && cur4 !== undefined) {
    sub.v4.giveBack(cur4);
    store.setV4(slot, undefined);
  }
  if (s6 === undefined && sub.v6 && cur6 !== undefined) {
    sub.v6.giveBack(cur6);
    store.setV6(slot, undefined);
  }
  // want undefined means the lease lacks the family (then cur is undefined too).
  if (s4 && (want4 === undefined || want4 !== cur4)) {
    if (cur4 !== undefined) s4.giveBack(cur4);
    if (want4 !== undefined) s4.claim(want4);
    store.setV4(slot, want4 ?? s4.take(t.pool)!);
  }
  if (s6 && (want6 === undefined || want6 !== cur6)) {
    if (cur6 !== undefined) s6.giveBack(cur6);
    if (want6 !== undefined) s6.claim(want6);
    store.setV6(slot, want6 ?? s6.take(t.pool)!);
  }
  const v4 = store.v4Of(slot);
  const v6 = store.v6Of(slot);
  return { ok: true, lease: { owner: req.owner, subnet: sub.name, v4, v6, mac } };
}

/** Whether the lease already satisfies an `ip_pool` address list (its ordinal's entry, or any entry). */
function holdsListedAddress(req: AllocateRequest, cur4: number | undefined, cur6: bigint | undefined): boolean {
  const ann = parseIpPoolAnnotation(req.ipPool!);
  if (ann.kind === 'pool') return true;
  const entries = req.ordinal === undefined ? ann.entries : ann.entries.slice(req.ordinal, req.ordinal + 1);
  return entries.some((e) =>
    e.split(',').every((text) => {
      const ip = tryParseIP(text);
      return ip !== undefined && (ip.family === 4 ? ip.value === cur4 : ip.value === cur6);
    }),
  );
}

function resolveTarget(st: IpamState, sub: SubnetAllocator, req: AllocateRequest, slot: number): Target | IpamError {
  if (req.ips !== undefined) return staticTarget(st, sub, req.ips, req.owner, slot, ['ips']);
  if (req.ipPool !== undefined) {
    const ann = parseIpPoolAnnotation(req.ipPool);
    if (ann.kind === 'pool') {
      const pool = sub.poolIndex(ann.name);
      if (pool < 0)
        return new IpamError(
          'unknown-pool',
          sub.name,
          `ippool ${q(ann.name)} does not exist in subnet ${q(sub.name)}`,
          ['ipPool'],
        );
      return { pool };
    }
    if (req.ordinal !== undefined) {
      const entry = ann.entries[req.ordinal];
      if (entry === undefined) {
        return new IpamError(
          'exhausted',
          sub.name,
          `owner ${q(req.owner)}: ip_pool ${q(req.ipPool)} has ${ann.entries.length} entries, none for ordinal ${req.ordinal}`,
          ['ipPool'],
        );
      }
      return staticTarget(st, sub, entry, req.owner, slot, ['ipPool', req.ordinal]);
    }
    // Not a StatefulSet pod: the first entry nobody else holds (Kube-OVN's order).
    let last: IpamError | undefined;
    for (const [i, entry] of ann.entries.entries()) {
      const t = staticTarget(st, sub, entry, req.owner, slot, ['ipPool', i]);
      if (!(t instanceof IpamError)) return t;
      last = t;
    }
    return last!;
  }
  if (req.namespace !== undefined && sub.hasNamespacePools) {
    const pools = sub.poolsForNamespace(req.namespace);
    if (pools.length > 0) {
      const pool = pools.find((p) => sub.hasRoom(p));
      return pool === undefined ? exhausted(sub, pools[0]!) : { pool };
    }
  }
  return { pool: 0 };
}

/** Parses and checks requested addresses: inside the subnet, not reserved, not held by someone else. */
function staticTarget(
  st: IpamState,
  sub: SubnetAllocator,
  text: string,
  owner: string,
  slot: number,
  path: IssuePath,
): Target | IpamError {
  const t: Target = { pool: 0 };
  for (const part of text.split(',')) {
    const ip = tryParseIP(part.trim());
    const who = `owner ${q(owner)}: requested ${q(text)}`;
    if (ip === undefined) return new IpamError('invalid-ip', sub.name, `${who}: ${q(part)} is not an IP address`, path);
    const space = ip.family === 4 ? sub.v4 : sub.v6;
    if (space === undefined)
      return new IpamError(
        'family-mismatch',
        sub.name,
        `${who}: subnet ${q(sub.name)} has no IPv${ip.family} CIDR`,
        path,
      );
    if ((ip.family === 4 ? t.v4 : t.v6) !== undefined)
      return new IpamError('invalid-ip', sub.name, `${who}: two IPv${ip.family} addresses`, path);
    const check = ip.family === 4 ? sub.v4!.check(ip.value) : sub.v6!.check(ip.value);
    if (check === 'out-of-range')
      return new IpamError(
        'out-of-range',
        sub.name,
        `${who}: ${formatIP(ip)} is outside subnet ${q(sub.name)} (${sub.config.spec.cidrBlock})`,
        path,
      );
    if (check === 'reserved')
      return new IpamError(
        'reserved',
        sub.name,
        `${who}: ${formatIP(ip)} is the network, broadcast or gateway address of subnet ${q(sub.name)}`,
        path,
      );
    const holder = ip.family === 4 ? st.store.holder4(sub.id, ip.value) : st.store.holder6(sub.id, ip.value);
    if (holder >= 0 && holder !== slot)
      return new Conflict(sub.name, st.store.ownerOf(holder), formatIP(ip), owner, path);
    if (ip.family === 4) t.v4 = ip.value;
    else t.v6 = ip.value;
  }
  return t;
}

function requestedMac(st: IpamState, sub: SubnetAllocator, req: AllocateRequest, slot: number): number | IpamError {
  const mac = tryParseMAC(req.mac!);
  if (mac === undefined || isMulticastMAC(mac)) {
    return new IpamError(
      'invalid-mac',
      sub.name,
      `owner ${q(req.owner)}: mac ${q(req.mac)} is not a unicast MAC address`,
      ['mac'],
    );
  }
  const holder = st.store.holderMac(mac);
  if (holder >= 0 && holder !== slot)
    return new Conflict(sub.name, st.store.ownerOf(holder), formatMAC(mac), req.owner, ['mac']);
  return mac;
}

/** A random locally administered unicast MAC no lease holds. */
export function newMac(st: IpamState, sub: SubnetAllocator): number | IpamError {
  // A sane source collides a handful of times in 2^46; a broken one (constant bytes) must not loop forever.
  for (let attempt = 0; attempt < 64; attempt++) {
    st.random(st.scratch);
    const mac = macFromBytes(st.scratch);
    if (st.store.holderMac(mac) < 0) return mac;
  }
  return new IpamError(
    'exhausted',
    sub.name,
    `subnet ${q(sub.name)}: the random source gave 64 MACs in a row that are already in use`,
    ['mac'],
  );
}

function exhausted(sub: SubnetAllocator, pool: number): IpamError {
  const where =
    pool === 0 ? `subnet ${q(sub.name)}` : `ippool ${q(sub.pools[pool - 1]!.name)} of subnet ${q(sub.name)}`;
  return new IpamError('exhausted', sub.name, `${where} has no free address left`, ['subnet']);
}
