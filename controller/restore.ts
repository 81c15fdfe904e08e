/**
 * Start-up IPAM: subnets and pools first (in creation order, so of two
 * overlapping subnets the older one is kept, as after any restart), then
 * every allocation from the IP objects, the pods' and nodes' annotations and
 * the NB ports, cross-checked by ipam/rebuild.ts. A disagreement between
 * the records is an event on the pod; two owners claiming one address is
 * an event on both, and the one without the IP object does not get it (its
 * reconcile asks for the address again and is refused until the other lets
 * it go): never resolved by handing the address to both
 * (kubeovn/kube-ovn#4304).
 */
import type { Backend } from '../backends/backend.ts';
import { decodeNodeNetwork, decodePodNetwork } from '../kube/annotations.ts';
import { ownerKey } from '../model/ipam/index.ts';
import { formatKey } from '../kube/cluster/types.ts';
import type { Ctx } from './handlers/context.ts';
import { checkSubnet, subnetsInOrder } from './handlers/subnet.ts';
import { type Claim, type Disagreement, rebuildAllocations } from './ipam/rebuild.ts';
import { decodeIP, decodeIPPool, decodeNode, decodePod } from '../kube/objects/objects.ts';
import { nodePort } from './translate/names.ts';

export interface RestoreReport {
  /** Leases restored. */
  readonly restored: number;
  readonly disagreements: readonly Disagreement[];
  /** Addresses claimed by two owners: the first kept it. */
  readonly duplicates: readonly { readonly address: string; readonly owners: readonly string[] }[];
  /** IP objects of pods that are gone (deleted after the start-up flush). */
  readonly staleIpObjects: readonly string[];
}

export async function restoreAllocations(ctx: Ctx, backend: Backend): Promise<RestoreReport> {
  restorePools(ctx);
  const { claims: ipObjects, stale } = ipObjectClaims(ctx);
  const r = rebuildAllocations({
    ipObjects,
    annotations: annotationClaims(ctx),
    ports: await portClaims(ctx, backend),
  });
  const issues = ctx.ipam.restore(r.records);
  const duplicates: { address: string; owners: string[] }[] = [];
  for (const i of issues) {
    if (i.code !== 'duplicate-ip' || i.owners === undefined) continue;
    duplicates.push({ address: i.address ?? '', owners: [...i.owners] });
    for (const owner of i.owners) {
      const ref = podRef(ctx, owner);
      if (ref) await ctx.event(ref, 'Warning', 'DuplicateIP', i.message);
    }
  }
  for (const d of r.disagreements) {
    const ref = podRef(ctx, d.owner);
    if (ref === undefined) continue;
    const what = Object.entries(d.claims)
      .map(([src, c]) => `${src} ${c?.subnet} ${c?.ips.join(',')}${c?.mac ? ` ${c.mac}` : ''}`)
      .join('; ');
    await ctx.event(ref, 'Warning', 'AllocationDisagreement', `kept the ${d.chosen}'s record: ${what}`);
  }
  return {
    restored: r.records.length - duplicates.length,
    disagreements: r.disagreements,
    duplicates,
    staleIpObjects: stale,
  };
}

/** Subnets (valid ones, in the Subnet handler's order) and pools into the IPAM, before any allocation. */
function restorePools(ctx: Ctx): void {
  // The join subnet first (the others are checked against it), then oldest first as the Subnet handler goes.
  const subnets = subnetsInOrder(ctx, ctx.cache('Subnet').list());
  for (const o of subnets) {
    // The Subnet handler's own checks: an invalid Subnet holds no addresses.
    const c = checkSubnet(ctx, o);
    if (c.bad.length === 0) ctx.ipam.setSubnet(c.spec);
  }
  for (const o of ctx.cache('IPPool').list()) {
    const p = ctx.decode(o, decodeIPPool).value;
    ctx.ipam.setPool({ name: p.name, subnet: p.subnet, ips: p.ips, namespaces: p.namespaces });
  }
}

/**
 * The IP objects' claims, and the IP objects of pods that are gone. Owners
 * (here and in the other claims) are named by the functions the
 * controller's lease index (Ctx.leaseHolder) is keyed by, so a claim's owner
 * finds its pod or node.
 */
function ipObjectClaims(ctx: Ctx): { claims: Claim[]; stale: string[] } {
  const claims: Claim[] = [];
  const stale: string[] = [];
  const podExists = (name: string, ns: string) =>
    ctx.cache('Pod').get(formatKey({ namespace: ns, name })) !== undefined;
  for (const o of ctx.cache('IP').list()) {
    const ip = ctx.decode(o, decodeIP).value;
    if (!ip.podName || !ip.namespace || !ip.ipAddress) continue;
    // Kube-OVN's IP garbage collection: the record of a pod that is gone goes too, unless a
    // StatefulSet's successor will take it over.
    if (!podExists(ip.podName, ip.namespace) && ip.podType !== 'StatefulSet') {
      stale.push(o.metadata.name);
      continue;
    }
    claims.push({
      owner: ownerKey(ip.podName, ip.namespace),
      subnet: ip.subnet,
      ips: ip.ipAddress.split(','),
      ...(ip.macAddress ? { mac: ip.macAddress } : {}),
    });
  }
  return { claims, stale };
}

/** The pods' and nodes' annotations' claims (kube/annotations.ts). */
function annotationClaims(ctx: Ctx): Claim[] {
  const claims: Claim[] = [];
  for (const o of ctx.cache('Pod').list()) {
    const p = ctx.decode(o, decodePod).value;
    // Annotations that do not decode (nothing allocated, or unreadable) are no claim; the other records stand.
    const d = decodePodNetwork(p.annotations);
    if (!d.ok || p.hostNetwork) continue;
    claims.push({
      owner: ownerKey(p.name, p.namespace),
      subnet: d.value.logicalSwitch ?? '',
      ips: d.value.ips,
      ...(d.value.mac ? { mac: d.value.mac } : {}),
    });
  }
  for (const o of ctx.cache('Node').list()) {
    const d = decodeNodeNetwork(ctx.decode(o, decodeNode).value.annotations);
    if (!d.ok) continue;
    claims.push({
      owner: nodePort(o.metadata.name),
      subnet: ctx.settings.nodeSwitch,
      ips: d.value.ips,
      ...(d.value.mac ? { mac: d.value.mac } : {}),
    });
  }
  return claims;
}

/** The NB ports' addresses, for ports of pods and nodes that exist. */
async function portClaims(ctx: Ctx, backend: Backend): Promise<Claim[]> {
  const claims: Claim[] = [];
  for (const p of (await backend.read()).switchPort.values()) {
    if (p.type !== '' || p.addresses.length === 0) continue;
    const [mac, ...ips] = p.addresses[0]!.split(' ');
    if (ips.length === 0 || !mac) continue;
    // Only ports of pods and nodes that exist: any other port of ours is an orphan the start-up flush removes.
    // A pod's port is named by its owner key and records the pod's key: both are compared, neither parsed.
    const holder = ctx.leaseHolder(p.name);
    const pod = holder?.kind === 'Pod' && p.externalIds.pod === formatKey(holder.key);
    const node = p.externalIds.node !== undefined && ctx.cache('Node').get(p.externalIds.node) !== undefined;
    if (!pod && !node) continue;
    claims.push({ owner: p.name, subnet: p.switch, ips, mac });
  }
  return claims;
}

/** The pod an IPAM owner key names, when it exists. */
function podRef(ctx: Ctx, owner: string) {
  const holder = ctx.leaseHolder(owner);
  const o = holder?.kind === 'Pod' ? ctx.cache('Pod').get(formatKey(holder.key)) : undefined;
  return o
    ? { kind: 'Pod', namespace: o.metadata.namespace ?? '', name: o.metadata.name, uid: o.metadata.uid ?? '' }
    : undefined;
}
