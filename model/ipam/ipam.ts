/**
 * The cluster-wide IPAM: subnets by name, their IPPools, and every owner's
 * lease. Owner keys and MACs are unique across all subnets.
 */
import { overlaps, tryParseIP } from '../addr/index.ts';
import { type AllocateRequest, allocate } from './allocate.ts';
import { type IpamIssue, issue, q } from './errors.ts';
import { LeaseStore } from './lease-store.ts';
import { type IPPoolSpec, type PoolConfig, parsePoolSpec, poolOverlaps } from './pool-spec.ts';
import type { RandomBytes } from './random.ts';
import { type ReleasedRecord, type RestoreOptions, releasedRecords, restore, snapshot } from './restore.ts';
import { type AllocateResult, type AllocationRecord, type IpamState, type Lease, leaseAt, toRecord } from './state.ts';
import { type SubnetCounters, type SubnetView, SubnetAllocator } from './subnet.ts';
import { type SubnetConfig, type SubnetSpec, parseSubnetSpec } from './subnet-spec.ts';

export type IpamOptions = {
  /** Source of MAC randomness: `seededRandomBytes(seed)` in tests, `crypto.getRandomValues` in a cluster. */
  readonly random: RandomBytes;
};

/** A configuration change: applied (listing the leases it had to cut), or refused with every issue. */
export type ChangeResult =
  | { readonly ok: true; readonly dropped: readonly AllocationRecord[] }
  | { readonly ok: false; readonly issues: readonly IpamIssue[] };

/**
 * @example
 * const ipam = new IPAM({ random: seededRandomBytes(1) });
 * ipam.setSubnet({ name: 'ovn-default', cidrBlock: '10.16.0.0/16' });
 * const r = ipam.allocate({ subnet: 'ovn-default', owner: 'web-0.default' });
 * r.ok && formatIPv4(r.lease.v4!); // '10.16.0.2' (10.16.0.1 is the gateway)
 */
export class IPAM {
  private readonly st: IpamState;

  constructor(opts: IpamOptions) {
    this.st = {
      subnets: new Map(),
      byId: new Map(),
      store: new LeaseStore(),
      random: opts.random,
      scratch: new Uint8Array(6),
      nextId: 0,
    };
  }

  /** Adds or updates a subnet. Leases whose addresses the new spec no longer allows are dropped and listed. */
  setSubnet(spec: SubnetSpec): ChangeResult {
    const parsed = parseSubnetSpec(spec);
    if (!parsed.ok) return { ok: false, issues: parsed.issues };
    const config = parsed.value;
    const old = this.st.subnets.get(config.name);
    const issues = [...this.overlapIssues(config), ...this.gatewayIssues(config, old)];
    if (issues.length > 0) return { ok: false, issues };
    const id = old?.id ?? this.st.nextId++;
    return { ok: true, dropped: this.replace(old, new SubnetAllocator(id, config, old?.pools ?? [])) };
  }

  /** Removes a subnet and every lease in it (returned). */
  deleteSubnet(name: string): AllocationRecord[] {
    const sub = this.st.subnets.get(name);
    if (sub === undefined) return [];
    const dropped = this.st.store.slots(sub.id).map((slot) => {
      const rec = toRecord(leaseAt(this.st, slot));
      this.st.store.remove(slot);
      return rec;
    });
    this.st.subnets.delete(name);
    this.st.byId.delete(sub.id);
    return dropped;
  }

  /** Adds or updates an IPPool in its subnet. */
  setPool(spec: IPPoolSpec): ChangeResult {
    const sub = this.st.subnets.get(spec.subnet);
    if (sub === undefined) {
      return {
        ok: false,
        issues: [
          issue(
            'unknown-subnet',
            ['ippools', spec.name, 'subnet'],
            `ippool ${q(spec.name)}: subnet ${q(spec.subnet)} does not exist`,
            { subnet: spec.subnet },
          ),
        ],
      };
    }
    const parsed = parsePoolSpec(spec, sub.config);
    if (!parsed.ok) return { ok: false, issues: parsed.issues };
    const issues = poolOverlaps(parsed.value, sub.pools);
    for (const other of this.st.subnets.values()) {
      if (other !== sub && other.poolIndex(spec.name) > 0) {
        issues.push(
          issue(
            'invalid-name',
            ['ippools', spec.name, 'subnet'],
            `ippool ${q(spec.name)} already belongs to subnet ${q(other.name)}`,
            { subnet: spec.subnet },
          ),
        );
      }
    }
    if (issues.length > 0) return { ok: false, issues };
    const pools: PoolConfig[] = [...sub.pools.filter((p) => p.name !== spec.name), parsed.value];
    return { ok: true, dropped: this.replace(sub, new SubnetAllocator(sub.id, sub.config, pools)) };
  }

  /** Removes an IPPool; its addresses go back to the subnet's default pool. False when unknown. */
  deletePool(subnet: string, name: string): boolean {
    const sub = this.st.subnets.get(subnet);
    if (sub === undefined || sub.poolIndex(name) <= 0) return false;
    this.replace(
      sub,
      new SubnetAllocator(
        sub.id,
        sub.config,
        sub.pools.filter((p) => p.name !== name),
      ),
    );
    return true;
  }

  subnet(name: string): SubnetView | undefined {
    return this.st.subnets.get(name);
  }

  subnetNames(): string[] {
    return [...this.st.subnets.keys()].sort();
  }

  /**
   * Gives the owner its lease: the same one again if it has one (idempotent),
   * else the lowest free addresses (requested ones when asked) and a MAC.
   */
  allocate(req: AllocateRequest): AllocateResult {
    return allocate(this.st, req);
  }

  lookup(owner: string): Lease | undefined {
    const slot = this.st.store.slotOf(owner);
    return slot < 0 ? undefined : leaseAt(this.st, slot);
  }

  /** Who holds an address (text, either family) in a subnet. */
  ownerOf(subnet: string, ip: string): string | undefined {
    const sub = this.st.subnets.get(subnet);
    const addr = tryParseIP(ip);
    if (sub === undefined || addr === undefined) return undefined;
    const slot =
      addr.family === 4 ? this.st.store.holder4(sub.id, addr.value) : this.st.store.holder6(sub.id, addr.value);
    return slot < 0 ? undefined : this.st.store.ownerOf(slot);
  }

  /** Releases the owner's lease (returned); its addresses are reused only after the never-used ones. */
  release(owner: string): Lease | undefined {
    const { store } = this.st;
    const slot = store.slotOf(owner);
    if (slot < 0) return undefined;
    const sub = this.st.byId.get(store.sidOf(slot))!;
    const v4 = store.v4Of(slot);
    const v6 = store.v6Of(slot);
    const lease: Lease = { owner, subnet: sub.name, v4, v6, mac: store.macOf(slot) };
    if (v4 !== undefined) sub.v4?.giveBack(v4);
    if (v6 !== undefined) sub.v6?.giveBack(v6);
    store.remove(slot);
    return lease;
  }

  /** Used and available addresses per family (IPv6 as bigint); `pool` narrows to one IPPool. */
  counters(subnet: string, pool?: string): SubnetCounters | undefined {
    const sub = this.st.subnets.get(subnet);
    if (sub === undefined) return undefined;
    if (pool === undefined) return sub.counters();
    const i = sub.poolIndex(pool);
    return i < 0 ? undefined : sub.counters(i);
  }

  /** Number of leases. */
  get size(): number {
    return this.st.store.size;
  }

  /** Every lease as a record, sorted by subnet then owner. */
  snapshot(): AllocationRecord[] {
    return snapshot(this.st);
  }

  /** Released addresses not yet reused: pass to {@link restore} to keep the reuse order across a restart. */
  released(): ReleasedRecord[] {
    return releasedRecords(this.st);
  }

  /** Replaces every lease with the records'; returns every problem (see restore.ts for the policy). */
  restore(records: readonly AllocationRecord[], opts?: RestoreOptions): IpamIssue[] {
    return restore(this.st, records, opts);
  }

  private overlapIssues(config: SubnetConfig): IpamIssue[] {
    const out: IpamIssue[] = [];
    for (const other of this.st.subnets.values()) {
      if (other.name === config.name || other.config.vpc !== config.vpc) continue;
      const hit =
        (config.v4 && other.config.v4 && overlaps(config.v4.cidr, other.config.v4.cidr)) ||
        (config.v6 && other.config.v6 && overlaps(config.v6.cidr, other.config.v6.cidr));
      if (hit) {
        const message = `subnet ${q(config.name)}: cidrBlock ${q(config.spec.cidrBlock)} overlaps subnet ${q(other.name)} (${other.config.spec.cidrBlock}) in vpc ${q(config.vpc)}`;
        out.push(issue('cidr-overlap', ['subnets', config.name, 'cidrBlock'], message, { subnet: config.name }));
      }
    }
    return out;
  }

  /** A gateway change must not land on an address a lease holds. */
  private gatewayIssues(config: SubnetConfig, old: SubnetAllocator | undefined): IpamIssue[] {
    if (old === undefined) return [];
    const out: IpamIssue[] = [];
    const holders = [
      config.v4 && this.st.store.holder4(old.id, config.v4.gateway),
      config.v6 && this.st.store.holder6(old.id, config.v6.gateway),
    ];
    for (const h of holders) {
      if (h === undefined || h < 0) continue;
      const owner = this.st.store.ownerOf(h);
      out.push(
        issue(
          'gateway-in-use',
          ['subnets', config.name, 'gateway'],
          `subnet ${q(config.name)}: the gateway address is held by ${q(owner)}`,
          { subnet: config.name, owners: [owner] },
        ),
      );
    }
    return out;
  }

  /**
   * Installs a rebuilt allocator for a subnet, keeping every lease the new
   * config still allows and the released lists (so reuse order survives).
   */
  private replace(old: SubnetAllocator | undefined, next: SubnetAllocator): AllocationRecord[] {
    const { store } = this.st;
    const dropped: AllocationRecord[] = [];
    const held4: number[] = [];
    const held6: bigint[] = [];
    for (const slot of old ? store.slots(old.id) : []) {
      const before = toRecord(leaseAt(this.st, slot));
      const v4 = store.v4Of(slot);
      const v6 = store.v6Of(slot);
      const keep4 = v4 !== undefined && next.v4?.check(v4) === 'ok';
      const keep6 = v6 !== undefined && next.v6?.check(v6) === 'ok';
      if (keep4) held4.push(v4);
      else if (v4 !== undefined) store.setV4(slot, undefined);
      if (keep6) held6.push(v6);
      else if (v6 !== undefined) store.setV6(slot, undefined);
      if (!keep4 && !keep6) store.remove(slot);
      const lost = before.ips.filter((ip) => !(keep4 && !ip.includes(':')) && !(keep6 && ip.includes(':')));
      if (lost.length > 0) dropped.push({ ...before, ips: lost });
    }
    next.v4?.rebuild(Float64Array.from(held4).sort(), old?.v4?.releasedFlat() ?? []);
    next.v6?.rebuild(
      held6.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      old?.v6?.releasedFlat() ?? [],
    );
    this.st.subnets.set(next.name, next);
    this.st.byId.set(next.id, next);
    return dropped;
  }
}
