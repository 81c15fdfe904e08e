/**
 * `kovn ko diagnose`: where a live cluster's NB, its objects and their
 * annotations disagree, and whether its databases' raft is healthy.
 *
 * How: the controller is replayed beside the cluster (replay.ts) starting
 * from the live NB's rows of kovn; the rows it ends with are what the
 * objects call for. The plan from the live rows to those is the finding:
 * a create is an object without its row, a delete a row of ours no object
 * explains, an update a row that differs (with the fields). Rows of other
 * owners are never read (the backend reads only `vendor=kovn` rows). IPAM's
 * start-up cross-check (controller/restore.ts) gives the annotations that
 * disagree with the other records of an address (the IP object, the NB
 * port) and addresses two owners claim. Raft health comes from each
 * member's `cluster/status` (backends/ovn/control-plane/raft-status.ts).
 */
import type { RaftProblem } from '../../backends/ovn/control-plane/index.ts';
import type { ControllerSettings } from '../../controller/config.ts';
import type { ClusterSource, ObjectRef } from '../../kube/cluster/types.ts';
import { warningJSON } from '../../kube/objects/warnings.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { ownerKey } from '../../model/ipam/index.ts';
import { plan, type TableName, type Topology } from '../../model/topology/index.ts';
import { replayCluster } from './replay.ts';

/** A row by table and key, and the fields of it that differ. */
export interface RowRef {
  readonly table: TableName;
  readonly key: string;
  readonly fields?: readonly string[];
}

export type RowFinding = RowRef & {
  /** missing-row: an object's row is not in NB; orphan-row: no object explains it; row-differs: it is, not as asked. */
  readonly code: 'missing-row' | 'orphan-row' | 'row-differs';
  /** The object the row is for (absent for an orphan). */
  readonly owner?: ObjectRef;
  /**
   * Rows that differ only because this one is missing: sets that would list
   * it (port groups, a switch's ports), counted here and not again.
   */
  readonly alsoIn?: readonly RowRef[];
};

export type AddressSource = 'ip-object' | 'annotation' | 'nb-port';

export type AnnotationFinding =
  | {
      /** The pod's (or node's) annotations say one address, another record another. */
      readonly code: 'annotation-disagrees';
      /** IPAM's owner key (`<pod>.<ns>`, `node-<node>`) and, when it is a pod that exists, the pod. */
      readonly owner: string;
      readonly pod?: ObjectRef;
      /** What each record says: `<subnet> <ips> [mac]`. */
      readonly records: Readonly<Partial<Record<AddressSource, string>>>;
      /**
       * The pod's rows the controller would change because of it (an
       * `ip_address` annotation is also a request: the port would move to
       * it), counted here and not again.
       */
      readonly effects: readonly RowRef[];
    }
  | {
      readonly code: 'duplicate-address';
      readonly address: string;
      readonly owners: readonly string[];
    };

export interface Diagnosis {
  readonly rows: readonly RowFinding[];
  readonly annotations: readonly AnnotationFinding[];
  /**
   * Objects the controller refuses (a Subnet overlapping another, a policy
   * that does not translate, an address that cannot be had): they have no
   * rows, and none are missing for them.
   */
  readonly refused: readonly WarningJSON[];
  /** What the controller reads and does not act on (fields, annotations): no fault, said for completeness. */
  readonly notActedOn: readonly WarningJSON[];
  readonly raft: { readonly nb: readonly RaftProblem[]; readonly sb: readonly RaftProblem[] };
  /** What was compared: objects copied, rows of kovn read from NB. */
  readonly checked: { readonly objects: number; readonly rows: number };
}

export interface DiagnoseOptions {
  readonly cluster: ClusterSource;
  /** kovn's rows as the live NB holds them (OvnBackend.read()). */
  readonly nb: Topology;
  readonly clock: Clock;
  readonly settings?: ControllerSettings;
  readonly raft?: Diagnosis['raft'];
}

const rowCount = (t: Topology): number =>
  Object.values(t).reduce((n, m: ReadonlyMap<string, unknown>) => n + m.size, 0);

/**
 * @example
 * const d = await diagnose({ cluster, nb: await backend.read(), clock: realClock });
 * d.rows; // [{ code: 'missing-row', table: 'switchPort', key: 'debug.default', owner: { kind: 'Pod', ... } }]
 */
export async function diagnose(opts: DiagnoseOptions): Promise<Diagnosis> {
  const r = await replayCluster(opts.cluster, {
    clock: opts.clock,
    topology: opts.nb,
    ...(opts.settings ? { settings: opts.settings } : {}),
  });
  try {
    const rows = rowFindings(opts.nb, await r.backend.read(), (t, k) => r.controller.store.ownerOf(t, k));
    const pods = new Map<string, ObjectRef>();
    for (const p of (await r.cluster.list('Pod')).items) {
      const ns = p.metadata.namespace ?? 'default';
      pods.set(ownerKey(p.metadata.name, ns), { kind: 'Pod', namespace: ns, name: p.metadata.name });
    }
    const annotations: AnnotationFinding[] = [];
    for (const d of r.start.disagreements) {
      const records: Partial<Record<AddressSource, string>> = {};
      for (const [src, c] of Object.entries(d.claims))
        if (c) records[src as AddressSource] = `${c.subnet} ${c.ips.join(',')}${c.mac ? ` ${c.mac}` : ''}`;
      const pod = pods.get(d.owner);
      const effects = pod ? takeOwned(rows, pod) : [];
      annotations.push({ code: 'annotation-disagrees', owner: d.owner, ...(pod ? { pod } : {}), records, effects });
    }
    for (const x of r.start.duplicates)
      annotations.push({ code: 'duplicate-address', address: x.address, owners: x.owners });
    const warnings = r.controller.diagnostics.list();
    return {
      rows,
      annotations,
      refused: warnings.filter((w) => !NOT_ACTED_ON.has(w.code)).map(warningJSON),
      notActedOn: warnings.filter((w) => NOT_ACTED_ON.has(w.code)).map(warningJSON),
      raft: opts.raft ?? { nb: [], sb: [] },
      checked: { objects: r.copied, rows: rowCount(opts.nb) },
    };
  } finally {
    await r.stop();
  }
}

type Fields = Readonly<Record<string, unknown>>;

type WarningJSON = ReturnType<typeof warningJSON>;

/**
 * The warning codes of what is read and not acted on (docs/architecture.md,
 * Honest answers); every other code the controller reports is a refusal.
 */
const NOT_ACTED_ON = new Set(['UnknownField', 'UnsupportedField', 'UnsupportedAnnotation', 'LimitedField']);

type OwnerOf = (table: TableName, key: string) => ObjectRef | undefined;

/**
 * The plan from the live rows to the wanted ones, as findings; a set that
 * differs only by listing missing rows is folded into those rows' findings.
 *
 * @example rowFindings(live, wanted, (t, k) => store.ownerOf(t, k)) // [{ code: 'missing-row', table: 'switchPort', ... }]
 */
export function rowFindings(live: Topology, wanted: Topology, ownerOf: OwnerOf): RowFinding[] {
  const missing = new Map<string, RowRef[]>();
  const out: (RowFinding & { alsoIn?: RowRef[] })[] = [];
  for (const op of plan(live, wanted)) {
    const o = ownerOf(op.table, op.key);
    const base = { table: op.table, key: op.key, ...(o ? { owner: refOnly(o) } : {}) };
    if (op.op === 'create') {
      const also: RowRef[] = [];
      missing.set(op.key, also);
      out.push({ code: 'missing-row', ...base, alsoIn: also });
    } else if (op.op === 'delete') out.push({ code: 'orphan-row', table: op.table, key: op.key });
    else {
      const fields = op.op === 'update' ? Object.keys(op.changes).sort() : ['members'];
      out.push({ code: 'row-differs', ...base, fields });
    }
  }
  const kept = out.filter((f) => {
    if (f.code !== 'row-differs') return true;
    const into = onlyListsMissing(f, live, wanted, missing);
    if (into === undefined) return true;
    for (const also of into) also.push({ table: f.table, key: f.key, ...(f.fields ? { fields: f.fields } : {}) });
    return false;
  });
  return kept.map((f) => (f.alsoIn?.length === 0 ? withoutAlso(f) : f));
}

const withoutAlso = ({ alsoIn: _, ...f }: RowFinding): RowFinding => f;

/**
 * The missing rows' lists a differing row is explained by: every field that
 * differs is a set that the wanted row extends only by missing rows' keys.
 */
function onlyListsMissing(
  f: RowRef,
  live: Topology,
  wanted: Topology,
  missing: ReadonlyMap<string, RowRef[]>,
): RowRef[][] | undefined {
  const rowOf = (t: Topology) => (t[f.table] as ReadonlyMap<string, unknown>).get(f.key) as Fields | undefined;
  const was = rowOf(live);
  const is = rowOf(wanted);
  if (was === undefined || is === undefined) return undefined;
  const lists = new Set<RowRef[]>();
  for (const field of f.fields ?? []) {
    const a = was[field];
    const b = is[field];
    if (!Array.isArray(b) || (a !== undefined && !Array.isArray(a))) return undefined;
    const before = new Set((a ?? []) as unknown[]);
    if ([...before].some((x) => !b.includes(x))) return undefined;
    for (const x of b) {
      if (before.has(x)) continue;
      const list = typeof x === 'string' ? missing.get(x) : undefined;
      if (list === undefined) return undefined;
      lists.add(list);
    }
  }
  return lists.size > 0 ? [...lists] : undefined;
}

/** Removes and returns the row-differs findings of rows `pod` owns. */
function takeOwned(rows: RowFinding[], pod: ObjectRef): RowRef[] {
  const taken: RowRef[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const f = rows[i]!;
    const o = f.owner;
    if (f.code !== 'row-differs' || o?.kind !== 'Pod' || o.name !== pod.name || o.namespace !== pod.namespace) continue;
    taken.unshift({ table: f.table, key: f.key, ...(f.fields ? { fields: f.fields } : {}) });
    rows.splice(i, 1);
  }
  return taken;
}

const refOnly = (o: ObjectRef): ObjectRef => ({
  kind: o.kind,
  name: o.name,
  ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
});
