/**
 * What must hold once the controller is idle after any sequence of events,
 * each check returning the violations it found (empty: it holds):
 *
 * 1. incremental = from scratch: the backend's rows equal what a fresh
 *    controller builds on a fresh backend from the final objects alone
 *    (their annotations and IP objects included, so addresses are restored),
 *    but for the rows a Subnet refused after it was accepted keeps (fail
 *    closed), excused row by row with the refusal that caused them
 *    (excuseKeptSubnets), counted, and capped at 10% of sequences (run.ts);
 * 2. no address held twice, by the IPAM or by the pods' annotations, and
 *    each allocated pod's annotation is its lease;
 * 3. every scheduled pod that is not hostNetwork has its annotations and its
 *    logical switch port, unless its address cannot be had for a cause the
 *    check finds in the cluster itself (a static address another holds or
 *    outside its subnet, a subnet whose VPC is missing);
 * 4. nothing of ours without an owner: every row the backend holds has an
 *    owner in the desired-state store, and that object exists.
 */
import { SimBackend } from '../../backends/sim/index.ts';
import type { Controller } from '../../controller/controller.ts';
import { creationOrder } from '../../controller/handlers/context.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject, ObjectRef } from '../../kube/cluster/types.ts';
import { API_VERSION } from '../../kube/registry.ts';
import { containsIP, parseCIDR, tryParseIP } from '../../model/addr/index.ts';
import { rowsEqual, TABLE_ORDER, type TableName, type Tables, type Topology } from '../../model/topology/index.ts';
import { Harness } from './harness.ts';

const A = (k: string) => `ovn.kubernetes.io/${k}`;
/** The kinds a fresh controller is given (Events are history, not state). */
const STATE_KINDS = Object.keys(API_VERSION).filter((k) => k !== 'Event');

/** Every object of the kinds the controller reads, oldest first (the order a fresh cluster gets them in). */
export async function finalObjects(cluster: MemoryCluster): Promise<KubeObject[]> {
  const all: KubeObject[] = [];
  for (const kind of STATE_KINDS) all.push(...(await cluster.list(kind)).items);
  return creationOrder(all);
}

/** A fresh cluster holding `objects`, and a fresh controller on a fresh simulator backend, settled. */
export async function fromScratch(objects: readonly KubeObject[], seed: number): Promise<Harness> {
  const cluster = new MemoryCluster();
  for (const o of objects) {
    const {
      uid: _u,
      resourceVersion: _r,
      generation: _g,
      creationTimestamp: _c,
      deletionTimestamp,
      ...meta
    } = o.metadata;
    await cluster.create({ ...o, metadata: meta });
    if (deletionTimestamp !== undefined) await cluster.delete(refOf(o));
  }
  const h = new Harness(cluster, new SimBackend(), seed + 7919);
  h.boot(cluster);
  await h.settle();
  return h;
}

const refOf = (o: KubeObject): ObjectRef => ({
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
});

/** JSON, with bigints (row uuids, tags) as `123n`. */
const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

/** One row where the run's backend and the from-scratch build differ. */
export interface RowDiff {
  readonly table: TableName;
  readonly key: string;
  readonly text: string;
}

/** (1) Row by row (sets compared as sets, as the committer compares them): `got` (the run's backend) against `want` (built from scratch). */
export function diffTopologies(got: Topology, want: Topology): RowDiff[] {
  const out: RowDiff[] = [];
  for (const table of TABLE_ORDER) {
    const g = got[table] as ReadonlyMap<string, unknown>;
    const w = want[table] as ReadonlyMap<string, unknown>;
    const push = (key: string, text: string) => out.push({ table, key, text: `${table} ${key}: ${text}` });
    for (const [key, row] of g) {
      if (!w.has(key)) push(key, `in the backend, not built from scratch: ${show(row)}`);
      else if (!rowsEqual(table, row as Tables[typeof table], w.get(key) as Tables[typeof table]))
        push(key, `differs\n    backend:      ${show(row)}\n    from scratch: ${show(w.get(key))}`);
    }
    for (const [key, row] of w) if (!g.has(key)) push(key, `built from scratch, missing in the backend: ${show(row)}`);
  }
  return out;
}

/**
 * (1, excused) The differences a Subnet refused after it was accepted makes:
 * the running controller keeps its rows and leases (docs/architecture.md,
 * "Fail closed"), a controller starting now holds none. Excused only when
 * the running controller shows the cause: a ValidateLogicalSwitchFailed
 * problem on that Subnet in its diagnostics while its IPAM still holds the
 * subnet; and only rows owned (in the run's store) by that Subnet, by a pod
 * whose lease is in it, or by a NetworkPolicy of a namespace it binds, by
 * spec.namespaces or the namespace's logical_switch annotation (the policy's
 * address families are its namespace's subnets', the kept one's among
 * them). Each excuse names its row and its cause.
 */
export async function excuseKeptSubnets(
  c: Controller,
  cluster: MemoryCluster,
  diffs: readonly RowDiff[],
): Promise<{ kept: RowDiff[]; excused: string[] }> {
  const refused = new Map<string, string>();
  for (const w of c.diagnostics.list())
    if (w.kind === 'Subnet' && w.code === 'ValidateLogicalSwitchFailed' && c.ipam.subnet(w.name) !== undefined)
      refused.set(w.name, `Subnet ${w.name} refused and kept (${w.field}: ${w.message})`);
  // A namespace's subnets: those binding it by spec.namespaces, and the ones its logical_switch annotation
  // names (written when a subnet bound it; the controller reads it as the pod handler does).
  const bound = new Map<string, string>();
  for (const name of refused.keys()) {
    const o = await cluster.get({ kind: 'Subnet', name });
    for (const ns of (o?.spec as { namespaces?: string[] } | undefined)?.namespaces ?? []) bound.set(ns, name);
  }
  for (const ns of (await cluster.list('Namespace')).items)
    for (const name of (ns.metadata.annotations?.[A('logical_switch')] ?? '').split(','))
      if (refused.has(name.trim())) bound.set(ns.metadata.name, name.trim());
  const kept: RowDiff[] = [];
  const excused: string[] = [];
  for (const d of diffs) {
    const owner = c.store.ownerOf(d.table, d.key);
    const subnet =
      owner?.kind === 'Subnet'
        ? owner.name
        : owner?.kind === 'Pod'
          ? c.ipam.lookup(`${owner.name}.${owner.namespace}`)?.subnet
          : owner?.kind === 'NetworkPolicy'
            ? bound.get(owner.namespace ?? 'default')
            : undefined;
    const cause = subnet === undefined ? undefined : refused.get(subnet);
    if (cause === undefined || owner === undefined) kept.push(d);
    else excused.push(`${d.table} ${d.key} (owned by ${formatOwner(owner)}): ${cause}`);
  }
  return { kept, excused };
}

const formatOwner = (o: ObjectRef) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

/** (1b) The pods' allocations (annotations) and IP objects the fresh controller ends with, against the run's. */
export async function diffAllocations(got: MemoryCluster, want: MemoryCluster): Promise<string[]> {
  const view = async (c: MemoryCluster) => {
    const m = new Map<string, string>();
    for (const p of (await c.list('Pod')).items) {
      const a = p.metadata.annotations ?? {};
      if (a[A('allocated')] === 'true')
        m.set(
          `pod ${p.metadata.namespace}/${p.metadata.name}`,
          `${a[A('ip_address')]} ${a[A('mac_address')]} ${a[A('logical_switch')]}`,
        );
    }
    for (const o of (await c.list('IP')).items) {
      const s = o.spec as { ipAddress?: string; macAddress?: string; subnet?: string };
      m.set(`IP ${o.metadata.name}`, `${s.ipAddress} ${s.macAddress} ${s.subnet}`);
    }
    return m;
  };
  const g = await view(got);
  const w = await view(want);
  const out: string[] = [];
  for (const k of new Set([...g.keys(), ...w.keys()]))
    if (g.get(k) !== w.get(k)) out.push(`${k}: run ${g.get(k) ?? 'none'}, from scratch ${w.get(k) ?? 'none'}`);
  return out;
}

/**
 * Why a subnet cannot be used, found in the cluster: it is gone, or its Vpc
 * is. Its pods then keep their annotations and have no lease and no port
 * (a controller starting now restores none for them).
 */
async function unusable(cluster: MemoryCluster, subnet: string | undefined): Promise<string | undefined> {
  if (subnet === undefined) return undefined;
  const s = await cluster.get({ kind: 'Subnet', name: subnet });
  if (s === undefined) return `subnet ${subnet} does not exist`;
  const vpc = (s.spec as { vpc?: string }).vpc;
  if (vpc && (await cluster.get({ kind: 'Vpc', name: vpc })) === undefined)
    return `subnet ${subnet} names Vpc ${vpc}, which does not exist`;
  return undefined;
}

/** (2) No address held twice: by two leases, by two allocated pods; an allocated pod's annotation is its lease. */
export async function duplicateAddresses(c: Controller, cluster: MemoryCluster): Promise<string[]> {
  const out: string[] = [];
  const byLease = new Map<string, string>();
  for (const r of c.ipam.snapshot())
    for (const ip of r.ips) {
      const other = byLease.get(ip);
      if (other !== undefined) out.push(`address ${ip} leased to both ${other} and ${r.owner}`);
      byLease.set(ip, r.owner);
    }
  const byPod = new Map<string, string>();
  for (const p of (await cluster.list('Pod')).items) {
    const a = p.metadata.annotations ?? {};
    if (a[A('allocated')] !== 'true') continue;
    const owner = `${p.metadata.name}.${p.metadata.namespace}`;
    for (const ip of (a[A('ip_address')] ?? '').split(',')) {
      const other = byPod.get(ip);
      if (other !== undefined) out.push(`address ${ip} annotated on both ${other} and ${owner}`);
      byPod.set(ip, owner);
      const unleased = byLease.get(ip) === undefined && (await unusable(cluster, a[A('logical_switch')])) !== undefined;
      if (byLease.get(ip) !== owner && !unleased)
        out.push(`pod ${owner} is annotated ${ip}, leased to ${byLease.get(ip) ?? 'nobody'}`);
    }
  }
  return out;
}

/**
 * The subnet a pod of `ns` goes to, as the sequences use subnets: bound by
 * `namespaces` (first by name), else the one the namespace's
 * `logical_switch` annotation names (Kube-OVN reads it, and writes it when a
 * subnet binds the namespace), else ovn-default. Its name, and the object
 * when it exists.
 */
function expectedSubnet(
  subnets: readonly KubeObject[],
  ns: KubeObject | undefined,
  name: string,
): { name: string; obj: KubeObject | undefined } {
  const bound = subnets
    .filter((s) => s.metadata.deletionTimestamp === undefined)
    .filter((s) => ((s.spec as { namespaces?: string[] }).namespaces ?? []).includes(name))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const own = ns?.metadata.annotations?.[A('logical_switch')]?.split(',')[0]?.trim();
  const pick = bound[0]?.metadata.name ?? (own || 'ovn-default');
  return { name: pick, obj: subnets.find((s) => s.metadata.name === pick) };
}

/**
 * Why a pod has no address, when the cluster shows a cause: its static
 * address is held by another pod, lease or node, or lies outside its subnet,
 * or its subnet's VPC does not exist. Undefined: no cause found.
 */
function excuse(
  p: KubeObject,
  subnets: readonly KubeObject[],
  vpcs: Set<string>,
  leased: Map<string, string>,
  namespaces: ReadonlyMap<string, KubeObject>,
): string | undefined {
  const owner = `${p.metadata.name}.${p.metadata.namespace}`;
  const ns = p.metadata.namespace ?? 'default';
  const { name, obj: s } = expectedSubnet(subnets, namespaces.get(ns), ns);
  if (s === undefined) return `its subnet ${name} does not exist`;
  const vpc = (s.spec as { vpc?: string }).vpc;
  if (vpc && !vpcs.has(vpc)) return `its subnet ${s.metadata.name} names VPC ${vpc}, which does not exist`;
  const wanted = p.metadata.annotations?.[A('ip_address')];
  if (!wanted) return undefined;
  const holder = leased.get(wanted);
  if (holder !== undefined && holder !== owner) return `its static address ${wanted} is leased to ${holder}`;
  const cidr = (s.spec as { cidrBlock: string }).cidrBlock;
  const ip = tryParseIP(wanted);
  if (ip !== undefined && !containsIP(parseCIDR(cidr), ip))
    return `its static address ${wanted} is outside ${s.metadata.name} (${cidr})`;
  return undefined;
}

/** (3) Every scheduled pod not on the host network: annotations and its port, or a cause found for their absence. */
export async function podsWithoutNetwork(c: Controller, cluster: MemoryCluster, t: Topology): Promise<string[]> {
  const out: string[] = [];
  const subnets = (await cluster.list('Subnet')).items;
  const vpcs = new Set((await cluster.list('Vpc')).items.map((v) => v.metadata.name));
  const namespaces = new Map((await cluster.list('Namespace')).items.map((n) => [n.metadata.name, n]));
  const leased = new Map<string, string>();
  for (const r of c.ipam.snapshot()) for (const ip of r.ips) leased.set(ip, r.owner);
  for (const p of (await cluster.list('Pod')).items) {
    const spec = p.spec as { nodeName?: string; hostNetwork?: boolean };
    if (!spec.nodeName || spec.hostNetwork) continue;
    const id = `${p.metadata.name}.${p.metadata.namespace}`;
    const a = p.metadata.annotations ?? {};
    if (a[A('allocated')] !== 'true') {
      if (excuse(p, subnets, vpcs, leased, namespaces) === undefined)
        out.push(`pod ${id}: no allocated annotation and no cause found`);
      continue;
    }
    for (const k of ['ip_address', 'mac_address', 'cidr', 'gateway', 'logical_switch'])
      if (!a[A(k)]) out.push(`pod ${id}: annotation ${A(k)} missing`);
    const port = t.switchPort.get(id);
    if (port === undefined) {
      if ((await unusable(cluster, a[A('logical_switch')])) === undefined)
        out.push(`pod ${id}: allocated, no logical switch port`);
    } else {
      if (port.switch !== a[A('logical_switch')])
        out.push(`pod ${id}: port on switch ${port.switch}, annotated ${a[A('logical_switch')]}`);
      const want = `${a[A('mac_address')]} ${(a[A('ip_address')] ?? '').split(',').join(' ')}`;
      if (!port.addresses.includes(want))
        out.push(`pod ${id}: port addresses ${JSON.stringify(port.addresses)}, annotated ${want}`);
    }
  }
  return out;
}

/** (4) Every row the backend holds is owned in the store by an object the cluster has. */
export async function ownerless(c: Controller, cluster: MemoryCluster, t: Topology): Promise<string[]> {
  const out: string[] = [];
  for (const table of TABLE_ORDER)
    for (const key of (t[table] as ReadonlyMap<string, unknown>).keys()) {
      const owner = c.store.ownerOf(table, key);
      if (owner === undefined) out.push(`${table} ${key}: no owner in the store`);
      else if ((await cluster.get(owner)) === undefined)
        out.push(
          `${table} ${key}: owned by ${owner.kind} ${owner.namespace ? `${owner.namespace}/` : ''}${owner.name}, which does not exist`,
        );
    }
  return out;
}
