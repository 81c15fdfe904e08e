/**
 * Snapshot and restore: restart recovery from allocation records (the pods'
 * annotations, or a previous {@link snapshot}).
 *
 * Policy for bad records, deterministic and total: records are taken in
 * order; a record with any problem is not restored at all (no partial lease)
 * and yields one issue per problem. When two records claim one address or
 * one MAC, the earlier record keeps it and the later one is refused with a
 * `duplicate-ip` / `duplicate-mac` issue naming both owners.
 */
import { formatIP, formatIPv4, formatIPv6, isMulticastMAC, tryParseIP, tryParseMAC } from '../addr/index.ts';
import { newMac } from './allocate.ts';
import { type IpamIssue, type IpamIssueCode, type IssuePath, IpamError, issue, q } from './errors.ts';
import { ARITH4, ARITH6, normalize } from './range-list.ts';
import { type AllocationRecord, type IpamState, leaseAt, toRecord } from './state.ts';
import type { SubnetAllocator } from './subnet.ts';
import { parseRangeEntry } from './subnet-spec.ts';

/** Addresses released but not yet reused, so a restore keeps Kube-OVN's reuse order. */
export type ReleasedRecord = {
  readonly subnet: string;
  /** "a" or "a..b", either family. */
  readonly ranges: readonly string[];
};

export type RestoreOptions = { readonly released?: readonly ReleasedRecord[] };

/** Every lease as a record, sorted by subnet then owner (independent of history). */
export function snapshot(st: IpamState): AllocationRecord[] {
  const out = st.store.slots().map((slot) => toRecord(leaseAt(st, slot)));
  return out.sort((a, b) =>
    a.subnet !== b.subnet ? (a.subnet < b.subnet ? -1 : 1) : a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0,
  );
}

export function releasedRecords(st: IpamState): ReleasedRecord[] {
  const out: ReleasedRecord[] = [];
  const text = <T>(flat: readonly T[], fmt: (v: T) => string): string[] => {
    const r: string[] = [];
    for (let i = 0; i < flat.length; i += 2)
      r.push(flat[i] === flat[i + 1] ? fmt(flat[i]!) : `${fmt(flat[i]!)}..${fmt(flat[i + 1]!)}`);
    return r;
  };
  for (const sub of [...st.subnets.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const ranges = [
      ...text(sub.v4?.releasedFlat() ?? [], formatIPv4),
      ...text(sub.v6?.releasedFlat() ?? [], formatIPv6),
    ];
    if (ranges.length > 0) out.push({ subnet: sub.name, ranges });
  }
  return out;
}

type Held = { v4: number[]; v6: bigint[] };

/** Replaces every lease with the records' (subnets stay as configured). */
export function restore(st: IpamState, records: readonly AllocationRecord[], opts: RestoreOptions = {}): IpamIssue[] {
  const issues: IpamIssue[] = [];
  const { store } = st;
  store.clear();
  store.reserve(records.length);
  const held = new Map<number, Held>();
  const recordOfSlot: number[] = [];
  const unfinished: { slot: number; index: number; needsMac: boolean }[] = [];
  const ips: Ips = { v4: undefined, v6: undefined };
  // A plain loop with no per-record closures: this runs 150k times at start-up.
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const before = issues.length;
    const sub = st.subnets.get(r.subnet);
    if (sub === undefined) {
      issues.push(recordIssue(i, r, 'unknown-subnet', ['subnet'], `subnet ${q(r.subnet)} does not exist`));
      continue;
    }
    const first = store.slotOf(r.owner);
    if (first >= 0) {
      issues.push(
        recordIssue(i, r, 'duplicate-owner', ['owner'], `owner already restored from record ${recordOfSlot[first]}`, {
          owners: [r.owner],
        }),
      );
      continue;
    }
    parseIps(st, sub, r, i, ips, issues);
    const mac = parseMac(st, r, i, issues);
    if (issues.length > before) continue;
    // A record without a MAC gets one after every record is in, so it cannot take a MAC a later record names;
    // meanwhile a negative placeholder (never a real MAC) keeps the index consistent.
    const slot = store.add(r.owner, sub.id, ips.v4, ips.v6, mac ?? -1 - i);
    recordOfSlot[slot] = i;
    let h = held.get(sub.id);
    if (h === undefined) held.set(sub.id, (h = { v4: [], v6: [] }));
    if (ips.v4 !== undefined) h.v4.push(ips.v4);
    if (ips.v6 !== undefined) h.v6.push(ips.v6);
    const missing = (sub.v4 && ips.v4 === undefined) || (sub.v6 && ips.v6 === undefined);
    if (missing || mac === undefined) unfinished.push({ slot, index: i, needsMac: mac === undefined });
  }
  const released = parseReleased(st, opts.released ?? [], issues);
  for (const sub of st.subnets.values()) {
    const h = held.get(sub.id) ?? { v4: [], v6: [] };
    const rel = released.get(sub.id);
    sub.v4?.rebuild(Float64Array.from(h.v4).sort(), rel?.v4 ?? []);
    sub.v6?.rebuild(
      h.v6.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      rel?.v6 ?? [],
    );
  }
  for (const u of unfinished) finish(st, u, records[u.index]!, issues);
  return issues;
}

type Ips = { v4: number | undefined; v6: bigint | undefined };

function recordIssue(
  i: number,
  r: AllocationRecord,
  code: IpamIssueCode,
  path: IssuePath,
  message: string,
  extra: Omit<IpamIssue, 'code' | 'path' | 'message'> = {},
): IpamIssue {
  return issue(code, ['records', i, ...path], `record ${i} (owner ${q(r.owner)}): ${message}`, {
    subnet: r.subnet,
    ...extra,
  });
}

/** Fills `out` with the record's addresses, pushing an issue for each bad one. */
function parseIps(
  st: IpamState,
  sub: SubnetAllocator,
  r: AllocationRecord,
  i: number,
  out: Ips,
  issues: IpamIssue[],
): void {
  out.v4 = undefined;
  out.v6 = undefined;
  const bad = (
    code: IpamIssueCode,
    k: number,
    message: string,
    extra: Omit<IpamIssue, 'code' | 'path' | 'message'> = {},
  ) => issues.push(recordIssue(i, r, code, ['ips', k], message, extra));
  for (let k = 0; k < r.ips.length; k++) {
    const text = r.ips[k]!;
    const ip = tryParseIP(text);
    if (ip === undefined) {
      bad('invalid-ip', k, `${q(text)} is not an IP address`);
      continue;
    }
    const space = ip.family === 4 ? sub.v4 : sub.v6;
    if (space === undefined) {
      bad('family-mismatch', k, `subnet ${q(sub.name)} has no IPv${ip.family} CIDR for ${text}`);
      continue;
    }
    if ((ip.family === 4 ? out.v4 : out.v6) !== undefined) {
      bad('invalid-ip', k, `two IPv${ip.family} addresses`);
      continue;
    }
    const check = ip.family === 4 ? sub.v4!.check(ip.value) : sub.v6!.check(ip.value);
    if (check !== 'ok') {
      const why =
        check === 'out-of-range'
          ? `is outside subnet ${q(sub.name)} (${sub.config.spec.cidrBlock})`
          : `is the network, broadcast or gateway address of subnet ${q(sub.name)}`;
      bad(check === 'out-of-range' ? 'ip-outside-subnet' : 'ip-reserved', k, `${text} ${why}`, { address: text });
      continue;
    }
    const holder = ip.family === 4 ? st.store.holder4(sub.id, ip.value) : st.store.holder6(sub.id, ip.value);
    if (holder >= 0) {
      const keeper = st.store.ownerOf(holder);
      const message = `${formatIP(ip)} in subnet ${q(sub.name)} is also claimed by ${q(keeper)}, which keeps it; ${q(r.owner)} is not restored`;
      bad('duplicate-ip', k, message, { owners: [keeper, r.owner], address: formatIP(ip) });
      continue;
    }
    if (ip.family === 4) out.v4 = ip.value;
    else out.v6 = ip.value;
  }
}

function parseMac(st: IpamState, r: AllocationRecord, i: number, issues: IpamIssue[]): number | undefined {
  if (r.mac === undefined) return undefined;
  const mac = tryParseMAC(r.mac);
  if (mac === undefined || isMulticastMAC(mac)) {
    issues.push(recordIssue(i, r, 'invalid-mac', ['mac'], `${q(r.mac)} is not a unicast MAC address`));
    return undefined;
  }
  const holder = st.store.holderMac(mac);
  if (holder >= 0) {
    const keeper = st.store.ownerOf(holder);
    const message = `MAC ${r.mac} is also claimed by ${q(keeper)}, which keeps it; ${q(r.owner)} is not restored`;
    issues.push(recordIssue(i, r, 'duplicate-mac', ['mac'], message, { owners: [keeper, r.owner], address: r.mac }));
  }
  return mac;
}

function parseReleased(
  st: IpamState,
  input: readonly ReleasedRecord[],
  issues: IpamIssue[],
): Map<number, { v4: number[]; v6: bigint[] }> {
  const out = new Map<number, { v4: number[]; v6: bigint[] }>();
  input.forEach((rec, i) => {
    const sub = st.subnets.get(rec.subnet);
    if (sub === undefined) {
      issues.push(
        issue('unknown-subnet', ['released', i, 'subnet'], `released[${i}]: subnet ${q(rec.subnet)} does not exist`, {
          subnet: rec.subnet,
        }),
      );
      return;
    }
    const p4: [number, number][] = [];
    const p6: [bigint, bigint][] = [];
    rec.ranges.forEach((text, k) => {
      const r = parseRangeEntry(text);
      if (typeof r === 'string') {
        issues.push(
          issue(
            'invalid-ip',
            ['released', i, 'ranges', k],
            `released[${i}] of subnet ${q(rec.subnet)}: ${q(text)}: ${r}`,
            { subnet: rec.subnet },
          ),
        );
      } else if (r.family === 4) p4.push([r.start as number, r.end as number]);
      else p6.push([r.start as bigint, r.end as bigint]);
    });
    const prev = out.get(sub.id);
    out.set(sub.id, {
      v4: normalize(ARITH4, [...pairs(prev?.v4), ...p4]),
      v6: normalize(ARITH6, [...pairs(prev?.v6), ...p6]),
    });
  });
  return out;
}

function pairs<T>(flat: readonly T[] | undefined): [T, T][] {
  const out: [T, T][] = [];
  for (let i = 0; flat && i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** Second pass: a MAC for records without one, and the family a dual-stack record lacks. */
function finish(
  st: IpamState,
  u: { slot: number; index: number; needsMac: boolean },
  r: AllocationRecord,
  issues: IpamIssue[],
): void {
  const sub = st.byId.get(st.store.sidOf(u.slot))!;
  if (u.needsMac) {
    const mac = newMac(st, sub);
    if (mac instanceof IpamError) {
      // No MAC, no lease: give the addresses back rather than keep a placeholder MAC.
      issues.push(
        issue(
          'invalid-mac',
          ['records', u.index, 'mac'],
          `record ${u.index} (owner ${q(r.owner)}): not restored: ${mac.message}`,
          { subnet: sub.name },
        ),
      );
      const v4 = st.store.v4Of(u.slot);
      const v6 = st.store.v6Of(u.slot);
      if (v4 !== undefined) sub.v4?.giveBack(v4);
      if (v6 !== undefined) sub.v6?.giveBack(v6);
      st.store.remove(u.slot);
      return;
    }
    st.store.setMac(u.slot, mac);
  }
  for (const fam of [4, 6] as const) {
    const space = fam === 4 ? sub.v4 : sub.v6;
    const has = fam === 4 ? st.store.v4Of(u.slot) !== undefined : st.store.v6Of(u.slot) !== undefined;
    if (space === undefined || has) continue;
    const v = space.hasRoom(0) ? space.take(0) : undefined;
    if (fam === 4) st.store.setV4(u.slot, v as number | undefined);
    else st.store.setV6(u.slot, v as bigint | undefined);
    const what =
      v === undefined
        ? 'and the subnet has none left'
        : `given ${fam === 4 ? formatIPv4(v as number) : formatIPv6(v as bigint)}`;
    issues.push(
      issue(
        'family-missing',
        ['records', u.index, 'ips'],
        `record ${u.index} (owner ${q(r.owner)}): no IPv${fam} address in dual-stack subnet ${q(sub.name)}, ${what}`,
        { subnet: sub.name },
      ),
    );
  }
}
