/**
 * The IPAM's internal state and the values it hands out. The {@link IPAM}
 * class is the public face; allocation and restore are functions over this
 * state, kept in their own files.
 */
import { formatIPv4, formatIPv6, formatMAC } from '../addr/index.ts';
import type { IpamError } from './errors.ts';
import type { LeaseStore } from './lease-store.ts';
import type { RandomBytes } from './random.ts';
import type { SubnetAllocator } from './subnet.ts';

/** What one owner holds: one address per family of its subnet, and a MAC. */
export type Lease = {
  readonly owner: string;
  readonly subnet: string;
  /** IPv4 as an unsigned 32-bit number. */
  readonly v4?: number;
  readonly v6?: bigint;
  /** 48-bit MAC as a number. */
  readonly mac: number;
};

/**
 * A lease as text: the snapshot/restore format, and what pod annotations
 * carry (`ip_address` is `ips.join(',')`, IPv4 first).
 */
export type AllocationRecord = {
  readonly owner: string;
  readonly subnet: string;
  readonly ips: readonly string[];
  /** Missing: restore gives the owner a new MAC. */
  readonly mac?: string;
};

export type AllocateResult =
  | { readonly ok: true; readonly lease: Lease }
  | { readonly ok: false; readonly error: IpamError };

export type IpamState = {
  readonly subnets: Map<string, SubnetAllocator>;
  readonly byId: Map<number, SubnetAllocator>;
  readonly store: LeaseStore;
  readonly random: RandomBytes;
  /** Six bytes reused for every MAC draw. */
  readonly scratch: Uint8Array;
  nextId: number;
};

export function leaseAt(st: IpamState, slot: number): Lease {
  const { store } = st;
  const v4 = store.v4Of(slot);
  const v6 = store.v6Of(slot);
  return {
    owner: store.ownerOf(slot),
    subnet: st.byId.get(store.sidOf(slot))!.name,
    ...(v4 !== undefined ? { v4 } : {}),
    ...(v6 !== undefined ? { v6 } : {}),
    mac: store.macOf(slot),
  };
}

/**
 * @example toRecord({ owner: 'a.default', subnet: 'ovn-default', v4: 0x0a100002, mac: 0x0a580a100002 })
 * // { owner: 'a.default', subnet: 'ovn-default', ips: ['10.16.0.2'], mac: '0a:58:0a:10:00:02' }
 */
export function toRecord(lease: Lease): AllocationRecord {
  const ips: string[] = [];
  if (lease.v4 !== undefined) ips.push(formatIPv4(lease.v4));
  if (lease.v6 !== undefined) ips.push(formatIPv6(lease.v6));
  return { owner: lease.owner, subnet: lease.subnet, ips, mac: formatMAC(lease.mac) };
}
