/**
 * model/ipam: Kube-OVN's IP address management, pure. Subnets (IPv4, IPv6,
 * dual stack) with excludeIps, gateway and network/broadcast reserved; the
 * lowest free address first, released ones only after the never-used ones;
 * idempotent leases per owner key `<pod>.<ns>[.<provider>]`; requested
 * addresses and MACs with typed conflicts; IPPools and StatefulSet ordinals;
 * MACs from an injected random source; exact counters; snapshot/restore.
 *
 * Memory follows the number of free ranges and leases, never the CIDR size:
 * free space is kept as sorted range lists, leases in typed-array columns.
 */
export { IPAM, type IpamOptions, type ChangeResult } from './ipam.ts';
export type { AllocateRequest } from './allocate.ts';
export { type Lease, type AllocationRecord, type AllocateResult, toRecord } from './state.ts';
export type { ReleasedRecord, RestoreOptions } from './restore.ts';
export { SubnetAllocator, type SubnetCounters, type SubnetView } from './subnet.ts';
export type { FamilyCounters, ClaimCheck } from './address-space.ts';
export { type SubnetSpec, type SubnetConfig, type FamilyConfig, DEFAULT_VPC, parseSubnetSpec } from './subnet-spec.ts';
export { type IPPoolSpec, type PoolConfig, parsePoolSpec } from './pool-spec.ts';
export { type IpPoolAnnotation, parseIpPoolAnnotation, statefulSetOrdinal, ownerKey } from './ip-pool-annotation.ts';
export { type RandomBytes, seededRandomBytes, macFromBytes, splitmix32 } from './random.ts';
export {
  IpamError,
  Conflict,
  type IpamErrorCode,
  type IpamIssue,
  type IpamIssueCode,
  type IssuePath,
} from './errors.ts';
export { RangeList, type Arith, ARITH4, ARITH6 } from './range-list.ts';
