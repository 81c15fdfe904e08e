/**
 * What kovn does with each field and annotation of a kind it reads, kept in
 * one table per kind (kube/objects/support/*.ts) so that nothing is read
 * and silently ignored (docs/fields.md is generated from the same tables):
 *
 * - `acted`: translated as Kube-OVN does;
 * - `limited`: acted on with a stated limitation; a value the limitation
 *   applies to is reported (`LimitedField`);
 * - `ignored`: not acted on; a value other than Kube-OVN's default is
 *   reported (`UnsupportedField`, `UnsupportedAnnotation`).
 *
 * Each entry not fully acted on says whether a probe's verdict may depend on
 * it (`verdict`): a pod in a subnet with an ignored `vlan` may be reached
 * differently in Kube-OVN, an ignored `ingress_rate` changes no verdict. The
 * scenario runner marks probes `unsure` from the first kind.
 *
 * For the core Kubernetes kinds the tables list the fields Kube-OVN (or the
 * Kubernetes network model) acts on; fields outside the network (a
 * container's image, a volume) are read by neither and are not listed. The
 * kubeovn.io/v1 kinds are closed: every spec field is listed, and a field
 * not in the table is an unknown field (a typo must not pass unnoticed).
 */
import { isPlainObject as isRecord } from '../cluster/json.ts';

export type SupportState = 'acted' | 'limited' | 'ignored';

/** Whether a probe's verdict may depend on an entry kovn does not (fully) act on. */
export type VerdictEffect = 'may-change' | 'none';

export interface FieldSupport {
  /** Below the object: `spec.vlan`; inside list items `spec.staticRoutes[].routeTable`. */
  readonly path: string;
  readonly state: SupportState;
  /** `limited`: the limitation; `ignored`: why not acted on. */
  readonly note?: string;
  /** A value Kube-OVN treats as unset (its default): an ignored field holding one is not reported. */
  readonly inert?: (v: unknown, o: Readonly<Record<string, unknown>>) => boolean;
  /** Default `may-change` for entries not fully acted on. */
  readonly verdict?: VerdictEffect;
  /** `limited`: the message when the limitation applies to this value (`o`: the whole object). */
  readonly limitation?: (v: unknown, o: Readonly<Record<string, unknown>>) => string | undefined;
}

export interface AnnotationSupport {
  /** The full key (`ovn.kubernetes.io/ip_address`), or a description of the keys `match` takes. */
  readonly key: string;
  /** Keys of a family (an attachment network's `<nad>.<ns>.kubernetes.io/...`), instead of one key. */
  readonly match?: RegExp;
  readonly state: SupportState;
  readonly note?: string;
  readonly inert?: (v: string) => boolean;
  readonly verdict?: VerdictEffect;
  readonly limitation?: (v: string) => string | undefined;
}

export interface KindSupport {
  readonly kind: string;
  readonly apiVersion: string;
  readonly fields: readonly FieldSupport[];
  readonly annotations?: readonly AnnotationSupport[];
  /**
   * Paths whose keys are all listed (`spec`, `spec.staticRoutes[]`): a key
   * there that the table does not name is an unknown field.
   */
  readonly closed?: readonly string[];
  /**
   * Annotation key prefixes that belong to Kube-OVN (`ovn.kubernetes.io/`):
   * a key under one that the table does not name is reported as unknown.
   */
  readonly annotationPrefixes?: readonly string[];
}

/** One problem found reading an object's fields and annotations, as data. */
export interface SupportIssue {
  readonly code: 'unknown-field' | 'unsupported-field' | 'limited-field' | 'unsupported-annotation';
  /** `spec.vlan`, `spec.staticRoutes[2].routeTable`, `metadata.annotations[ovn.kubernetes.io/ingress_rate]`. */
  readonly field: string;
  readonly message: string;
  /** Whether a probe's verdict may depend on what was not acted on. */
  readonly verdict: VerdictEffect;
}

/** Values Kube-OVN's Go structs decode to their zero value: nothing was asked for. */
export const zero = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === false ||
  v === 0 ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (isRecord(v) && Object.keys(v).length === 0);

/** One segment of a field path: its key, and whether it names a list (`b[]`). */
interface Segment {
  readonly key: string;
  readonly list: boolean;
}

/** No value at a path (shared: callers only read it). */
const NONE: { at: string; value: unknown }[] = [];

/** Paths are the tables' constants: each is split once. */
const segmentCache = new Map<string, readonly Segment[]>();

function hasList(segs: readonly Segment[]): boolean {
  for (const s of segs) if (s.list) return true;
  return false;
}

/** `a.b[].c` → `a`, `b` (a list), `c`. */
function segments(path: string): readonly Segment[] {
  let out = segmentCache.get(path);
  if (out === undefined) {
    out = path
      .split('.')
      .map((seg) => (seg.endsWith('[]') ? { key: seg.slice(0, -2), list: true } : { key: seg, list: false }));
    segmentCache.set(path, out);
  }
  return out;
}

/**
 * Every value at `path` in `o`, with its concrete field path (list items
 * numbered): `spec.staticRoutes[].routeTable` → `spec.staticRoutes[1].routeTable`.
 */
function valuesAt(o: unknown, path: string): { at: string; value: unknown }[] {
  const segs = segments(path);
  if (!hasList(segs)) {
    // No list on the way (most paths): at most one value, and its field path is the path itself.
    let v: unknown = o;
    for (const { key } of segs) {
      if (!isRecord(v) || !Object.hasOwn(v, key)) return NONE;
      v = v[key];
    }
    return [{ at: path, value: v }];
  }
  let level: { at: string; value: unknown }[] = [{ at: '', value: o }];
  for (const { key, list } of segs) {
    const next: { at: string; value: unknown }[] = [];
    for (const { at, value } of level) {
      if (!isRecord(value) || !Object.hasOwn(value, key)) continue;
      const here = at === '' ? key : `${at}.${key}`;
      const v = value[key];
      if (!list) next.push({ at: here, value: v });
      else if (Array.isArray(v)) v.forEach((item, i) => next.push({ at: `${here}[${i}]`, value: item }));
    }
    level = next;
  }
  return level;
}

/** What checkSupport looks up in a table, built once per table (the tables are constants; it runs on every decode). */
interface Lookups {
  /** Closed path → the field names the table knows under it. */
  readonly known: ReadonlyMap<string, ReadonlySet<string>>;
  /** Annotations named exactly (no `match`), by key. */
  readonly annotations: ReadonlyMap<string, NonNullable<KindSupport['annotations']>[number]>;
}

const lookupCache = new WeakMap<KindSupport, Lookups>();

function lookupsOf(table: KindSupport): Lookups {
  let hit = lookupCache.get(table);
  if (hit !== undefined) return hit;
  const known = new Map<string, ReadonlySet<string>>();
  for (const closed of table.closed ?? [])
    known.set(
      closed,
      new Set(
        table.fields
          .filter((f) => f.path.startsWith(`${closed}.`) && !f.path.slice(closed.length + 1).includes('.'))
          .map((f) => f.path.slice(closed.length + 1).replace(/\[\]$/, '')),
      ),
    );
  const list = table.annotations ?? [];
  hit = { known, annotations: new Map(list.filter((a) => a.match === undefined).map((a) => [a.key, a])) };
  lookupCache.set(table, hit);
  return hit;
}

const describeState = (f: { state: SupportState; note?: string }) =>
  f.note ? f.note : f.state === 'ignored' ? 'kovn does not act on it yet' : '';

/**
 * The issues of one object against its kind's table: unknown fields where
 * the table is closed, ignored fields holding a value, limitations that
 * apply, and annotations likewise.
 *
 * @example checkSupport(SUBNET_SUPPORT, { spec: { cidrBlock: '10.1.0.0/24', vlan: 'v1' } })
 *   // [{ code: 'unsupported-field', field: 'spec.vlan', verdict: 'may-change', message: 'spec.vlan is not acted on: ...' }]
 */
export function checkSupport(table: KindSupport, o: Readonly<Record<string, unknown>>): SupportIssue[] {
  const out: SupportIssue[] = [];
  for (const f of table.fields) {
    if (f.state === 'acted') continue;
    for (const { at, value } of valuesAt(o, f.path)) {
      if (f.state === 'ignored') {
        if ((f.inert ?? zero)(value, o)) continue;
        out.push({
          code: 'unsupported-field',
          field: at,
          message: `${at} is not acted on: ${describeState(f)}`,
          verdict: f.verdict ?? 'may-change',
        });
      } else {
        const why = f.limitation?.(value, o);
        if (why !== undefined)
          out.push({ code: 'limited-field', field: at, message: `${at}: ${why}`, verdict: f.verdict ?? 'may-change' });
      }
    }
  }
  const lookups = lookupsOf(table);
  for (const closed of table.closed ?? []) {
    const known = lookups.known.get(closed) as ReadonlySet<string>;
    for (const { at, value } of valuesAt(o, closed)) {
      if (!isRecord(value)) continue;
      for (const k of Object.keys(value))
        if (!known.has(k))
          out.push({
            code: 'unknown-field',
            field: `${at}.${k}`,
            message: `unknown field ${at}.${k}`,
            verdict: 'may-change',
          });
    }
  }
  const annotations = isRecord(o.metadata) ? o.metadata.annotations : undefined;
  if (isRecord(annotations)) {
    const list = table.annotations ?? [];
    const byKey = lookups.annotations;
    for (const [key, raw] of Object.entries(annotations)) {
      const value = typeof raw === 'string' ? raw : String(raw);
      const field = `metadata.annotations[${key}]`;
      const a = byKey.get(key) ?? list.find((x) => x.match?.test(key));
      if (a === undefined) {
        if ((table.annotationPrefixes ?? []).some((p) => key.startsWith(p)))
          out.push({
            code: 'unsupported-annotation',
            field,
            message: `annotation ${key} is not one kovn knows for a ${table.kind}: not acted on`,
            verdict: 'none',
          });
        continue;
      }
      if (a.state === 'acted') continue;
      if (a.state === 'ignored') {
        if ((a.inert ?? ((v: string) => v === ''))(value)) continue;
        out.push({
          code: 'unsupported-annotation',
          field,
          message: `annotation ${key} is not acted on: ${describeState(a)}`,
          verdict: a.verdict ?? 'may-change',
        });
      } else {
        const why = a.limitation?.(value);
        if (why !== undefined)
          out.push({
            code: 'limited-field',
            field,
            message: `annotation ${key}: ${why}`,
            verdict: a.verdict ?? 'may-change',
          });
      }
    }
  }
  return out;
}
