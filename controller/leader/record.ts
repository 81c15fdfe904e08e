/**
 * The leader election record as a coordination.k8s.io/v1 Lease holds it
 * (client-go's resourcelock.LeaseLock): `spec.holderIdentity`,
 * `leaseDurationSeconds`, `acquireTime`, `renewTime` (MicroTime: RFC 3339
 * with microseconds) and `leaseTransitions`. Pure: the elector reads and
 * writes Leases through these two functions only.
 */
import type { KubeObject } from '../../kube/cluster/types.ts';

/** What the Lease says about who leads; an empty holder means nobody (released). */
export interface LeaderRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** Milliseconds since the epoch. */
  readonly acquireTime: number;
  readonly renewTime: number;
  readonly leaseTransitions: number;
}

/** Where the Lease lives: Kube-OVN's is `kube-system/kube-ovn-controller`. */
export interface LeaseRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * A MicroTime as the API server writes it (`2026-11-28T11:38:23.123000Z`).
 *
 * @example microTime(0) // '1970-01-01T00:00:00.000000Z'
 */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const timeOf = (v: unknown): number => {
  if (typeof v !== 'string') return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
};

const numberOf = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The record of a Lease; a field missing or of the wrong type reads as
 * client-go reads it: empty holder, zero durations and times.
 *
 * @example recordOf(lease).holderIdentity // 'kovn-controller-7d9f-abcde'
 */
export function recordOf(lease: KubeObject): LeaderRecord {
  const spec = (typeof lease.spec === 'object' && lease.spec !== null ? lease.spec : {}) as Record<string, unknown>;
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: numberOf(spec.leaseDurationSeconds),
    acquireTime: timeOf(spec.acquireTime),
    renewTime: timeOf(spec.renewTime),
    leaseTransitions: numberOf(spec.leaseTransitions),
  };
}

/**
 * A Lease object carrying `record`; with `resourceVersion` it is an update
 * the API refuses (Conflict) when someone else wrote the Lease meanwhile.
 *
 * @example leaseOf({ namespace: 'kube-system', name: 'kovn-controller' }, record, '42')
 */
export function leaseOf(ref: LeaseRef, record: LeaderRecord, resourceVersion?: string): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    },
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      acquireTime: microTime(record.acquireTime),
      renewTime: microTime(record.renewTime),
      leaseTransitions: record.leaseTransitions,
    },
  };
}
