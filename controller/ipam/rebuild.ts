/**
 * Restart: the allocations to restore, from the three places they are
 * recorded, cross-checked. Kube-OVN rebuilds its IPAM from pod annotations
 * and IP objects without comparing them, and a pod whose annotation and IP
 * object disagree can end up sharing an address with another pod
 * (kubeovn/kube-ovn#4304). Here:
 *
 * - per owner (`<pod>.<ns>[.<provider>]`), the IP object is the record of
 *   truth, then the pod's annotations, then the NB port's addresses (an
 *   owner found only in NB still holds its address until the controller
 *   decides about the port, so nothing in use is handed out again);
 * - every disagreement between the sources is reported with all three;
 * - records go to `IPAM.restore` ordered by the strength of their source
 *   (IP object first), so when two owners claim one address the one with the
 *   IP object keeps it, and restore reports the other (`duplicate-ip` naming
 *   both): it is never resolved by giving the address to both.
 */
import type { AllocationRecord } from '../../model/ipam/index.ts';

export type ClaimSource = 'ip-object' | 'annotation' | 'nb-port';

export interface Claim {
  readonly owner: string;
  readonly subnet: string;
  readonly ips: readonly string[];
  readonly mac?: string;
}

export interface RebuildInput {
  readonly ipObjects: readonly Claim[];
  readonly annotations: readonly Claim[];
  readonly ports: readonly Claim[];
}

export interface Disagreement {
  readonly owner: string;
  readonly chosen: ClaimSource;
  readonly claims: Readonly<Partial<Record<ClaimSource, Claim>>>;
}

export interface RebuildResult {
  /** For `IPAM.restore`, strongest source first. */
  readonly records: readonly AllocationRecord[];
  /** The source each owner's record came from. */
  readonly sources: ReadonlyMap<string, ClaimSource>;
  readonly disagreements: readonly Disagreement[];
}

const ORDER: readonly ClaimSource[] = ['ip-object', 'annotation', 'nb-port'];

function same(a: Claim, b: Claim): boolean {
  const ips = (c: Claim) => [...c.ips].sort().join(',');
  return a.subnet === b.subnet && ips(a) === ips(b) && (a.mac === undefined || b.mac === undefined || a.mac === b.mac);
}

/**
 * @example
 * const r = rebuildAllocations({ ipObjects, annotations, ports });
 * const issues = ipam.restore(r.records); // duplicate-ip issues name both pods
 */
export function rebuildAllocations(input: RebuildInput): RebuildResult {
  const byOwner = new Map<string, Partial<Record<ClaimSource, Claim>>>();
  const add = (source: ClaimSource, claims: readonly Claim[]) => {
    for (const c of claims) {
      let entry = byOwner.get(c.owner);
      if (entry === undefined) byOwner.set(c.owner, (entry = {}));
      // The first claim of a source per owner counts; a second is a duplicate object, ignored.
      entry[source] ??= c;
    }
  };
  add('ip-object', input.ipObjects);
  add('annotation', input.annotations);
  add('nb-port', input.ports);
  const ranked: { record: AllocationRecord; rank: number }[] = [];
  const sources = new Map<string, ClaimSource>();
  const disagreements: Disagreement[] = [];
  for (const [owner, claims] of byOwner) {
    const chosen = ORDER.find((s) => claims[s] !== undefined)!;
    const claim = claims[chosen]!;
    sources.set(owner, chosen);
    const mac = claim.mac ?? ORDER.map((s) => claims[s]?.mac).find((m) => m !== undefined);
    ranked.push({
      record: { owner, subnet: claim.subnet, ips: claim.ips, ...(mac !== undefined ? { mac } : {}) },
      rank: ORDER.indexOf(chosen),
    });
    if (ORDER.some((s) => claims[s] !== undefined && !same(claims[s]!, claim)))
      disagreements.push({ owner, chosen, claims });
  }
  ranked.sort(
    (a, b) => a.rank - b.rank || (a.record.owner < b.record.owner ? -1 : a.record.owner > b.record.owner ? 1 : 0),
  );
  return { records: ranked.map((r) => r.record), sources, disagreements };
}
