/**
 * The local cache a monitor feeds: per table, a Map from row uuid to a frozen
 * row in native form (wire/datum.ts). Rows are values: an update builds a new
 * row object and never edits the old one, so a row handed out stays as it was.
 *
 * - Updates: `initial`/`insert` rows omit default-valued columns (filled in
 *   here); `modify` carries diffs: for columns of at most one value the new
 *   value, for sets the symmetric difference, for maps the pairs to add,
 *   remove (same key and value) or change (same key, new value), as
 *   ovsdb-server(7) §4.1.14 specifies.
 * - Full resync (`replaceAll`): the cache becomes exactly the given contents;
 *   rows missing from it are deleted (with change events), unchanged rows keep
 *   their object identity.
 * - Secondary indexes on configured keys: a column (`name`; a set column
 *   indexes each element) or a map key (`external_ids:vendor`).
 * - Listeners get each update message's changes as one batch.
 */
import type { MonitorEvent } from './client.ts';
import { type Timers, systemTimers } from './timers.ts';
import { OvsdbClientError, OvsdbProtocolError, OvsdbSchemaError } from './wire/errors.ts';
import { type NativeAtom, type NativeValue, compareAtoms, defaultNative, toNative } from './wire/datum.ts';
import type { MonitorCondRequests } from './wire/monitor.ts';
import type { Row } from './wire/operation.ts';
import { type ColumnType, type DatabaseSchema, isCompositeType, tableSchema } from './wire/schema.ts';
import type { TableUpdates2 } from './wire/update.ts';

export type CacheRow = { readonly _uuid: string } & { readonly [column: string]: NativeValue };

export interface RowChange {
  readonly table: string;
  readonly uuid: string;
  /** Undefined for an insert. */
  readonly old: CacheRow | undefined;
  /** Undefined for a delete. */
  readonly new: CacheRow | undefined;
}

export interface CacheOptions {
  readonly schema: DatabaseSchema;
  /** Tables to cache → columns to monitor (undefined: all of them). */
  readonly tables: Readonly<Record<string, readonly string[] | undefined>>;
  /** table → index keys: `name` (a column) or `external_ids:vendor` (a map key). */
  readonly indexes?: Readonly<Record<string, readonly string[]>>;
  /** Where listener exceptions go (they must not break the connection). Default: rethrown asynchronously. */
  readonly onListenerError?: (err: unknown) => void;
}

interface IndexDef {
  readonly column: string;
  readonly mapKey: string | undefined;
  readonly values: Map<NativeAtom, Set<string>>;
}

interface TableState {
  readonly name: string;
  readonly columns: readonly string[];
  readonly types: ReadonlyMap<string, ColumnType>;
  readonly rows: Map<string, CacheRow>;
  readonly indexes: ReadonlyMap<string, IndexDef>;
}

/**
 * @example
 * const cache = new OvsdbCache<nb.Tables>({ schema, tables: { Logical_Switch: undefined }, indexes: { Logical_Switch: ['name', 'external_ids:vendor'] } });
 * await client.monitorCondSince(schema.name, 'cache', cache.monitorRequests(), undefined, (e) => cache.apply(e));
 * cache.lookup('Logical_Switch', 'external_ids:vendor', 'kovn') // frozen rows
 */
export class OvsdbCache<Tables extends object = Record<string, CacheRow>> {
  readonly schema: DatabaseSchema;
  /** The last transaction id seen (monitor_cond_since reply / update3); undefined before any. */
  lastTxnId: string | undefined;
  private readonly state = new Map<string, TableState>();
  private readonly listeners = new Set<(changes: readonly RowChange[]) => void>();
  private readonly onListenerError: (err: unknown) => void;

  constructor(opts: CacheOptions) {
    this.schema = opts.schema;
    this.onListenerError = opts.onListenerError ?? ((err) => queueMicrotask(() => { throw err; }));
    for (const [name, cols] of Object.entries(opts.tables)) {
      const ts = tableSchema(opts.schema, name);
      const columns = cols === undefined ? Object.keys(ts.columns) : [...cols];
      const types = new Map<string, ColumnType>();
      for (const c of columns) {
        const cs = ts.columns[c];
        if (cs === undefined) throw new OvsdbSchemaError(`${name}.${c}`, `no column ${c} in table ${name}`);
        types.set(c, cs.type);
      }
      const indexes = new Map<string, IndexDef>();
      for (const key of opts.indexes?.[name] ?? []) indexes.set(key, indexDef(name, key, types));
      this.state.set(name, { name, columns, types, rows: new Map(), indexes });
    }
  }

  /** The monitor requests that feed this cache (all changes of the configured columns). */
  monitorRequests(): MonitorCondRequests {
    const out: Record<string, { columns: readonly string[] }[]> = {};
    for (const t of this.state.values()) out[t.name] = [{ columns: t.columns }];
    return out;
  }

  /** Names of the cached tables. */
  cachedTables(): string[] {
    return [...this.state.keys()];
  }

  get<T extends Extract<keyof Tables, string>>(table: T, uuid: string): Tables[T] | undefined {
    return this.table(table).get(uuid) as Tables[T] | undefined;
  }

  has(table: string, uuid: string): boolean {
    return this.tableState(table).rows.has(uuid);
  }

  /** All rows of a table (a live, read-only view). */
  table<T extends Extract<keyof Tables, string>>(table: T): ReadonlyMap<string, Tables[T]> {
    return this.tableState(table).rows as unknown as ReadonlyMap<string, Tables[T]>;
  }

  rows<T extends Extract<keyof Tables, string>>(table: T): Tables[T][] {
    return [...this.table(table).values()];
  }

  /** Rows whose index key equals `value`; scans when the key is not indexed. */
  lookup<T extends Extract<keyof Tables, string>>(table: T, key: string, value: NativeAtom): Tables[T][] {
    const t = this.tableState(table);
    const ix = t.indexes.get(key);
    if (ix === undefined) {
      const def = indexDef(table, key, t.types);
      return [...t.rows.values()].filter((r) => indexValues(def, r).includes(value)) as unknown as Tables[T][];
    }
    return [...(ix.values.get(value) ?? [])].map((u) => t.rows.get(u)) as unknown as Tables[T][];
  }

  /** Subscribes to change batches; returns the unsubscribe function. */
  onChange(listener: (changes: readonly RowChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Feeds a monitor event (the handler of `monitorCond`/`monitorCondSince`). */
  apply(event: MonitorEvent): readonly RowChange[] {
    const full = event.kind === 'reply' && event.found !== true;
    const changes = full ? this.replaceAll(event.updates) : this.applyUpdates(event.updates);
    if (event.lastTxnId !== undefined) this.lastTxnId = event.lastTxnId;
    return changes;
  }

  /** Applies incremental updates (update2/update3, or a monitor_cond_since reply with found=true). */
  applyUpdates(updates: TableUpdates2): readonly RowChange[] {
    const changes: RowChange[] = [];
    for (const [table, rows] of Object.entries(updates)) {
      const t = this.tableState(table);
      for (const [uuid, u] of Object.entries(rows)) {
        const old = t.rows.get(uuid);
        let next: CacheRow | undefined;
        if (u.kind === 'delete') {
          if (old === undefined) continue;
        } else if (u.kind === 'modify') {
          if (old === undefined) throw new OvsdbProtocolError(`modify of ${table} row ${uuid}, which the cache does not have`);
          next = modifyRow(t, old, u.row);
        } else {
          next = newRow(t, uuid, u.row);
        }
        this.setRow(t, uuid, old, next);
        changes.push({ table, uuid, old, new: next });
      }
    }
    this.emit(changes);
    return changes;
  }

  /** Replaces every cached table with `updates` (a full dump): the cache ends equal to it. */
  replaceAll(updates: TableUpdates2): readonly RowChange[] {
    for (const table of Object.keys(updates)) this.tableState(table);
    const changes: RowChange[] = [];
    for (const t of this.state.values()) {
      const incoming = updates[t.name] ?? {};
      for (const [uuid, old] of [...t.rows]) {
        if (incoming[uuid] === undefined || incoming[uuid]?.kind === 'delete') {
          this.setRow(t, uuid, old, undefined);
          changes.push({ table: t.name, uuid, old, new: undefined });
        }
      }
      for (const [uuid, u] of Object.entries(incoming)) {
        if (u.kind === 'delete') continue;
        const old = t.rows.get(uuid);
        const next = newRow(t, uuid, u.row);
        if (old !== undefined && rowEquals(old, next)) continue;
        this.setRow(t, uuid, old, next);
        changes.push({ table: t.name, uuid, old, new: next });
      }
    }
    this.emit(changes);
    return changes;
  }

  /** Empties the cache (change events for every row) and forgets the txn id. */
  clear(): void {
    this.lastTxnId = undefined;
    this.replaceAll({});
  }

  /**
   * Resolves once `predicate()` holds, checking now and after every change
   * batch; rejects with code `cache-timeout` after `timeoutMs`.
   */
  waitFor(predicate: () => boolean, opts: { timeoutMs: number; timers?: Timers; what?: string }): Promise<void> {
    if (predicate()) return Promise.resolve();
    const timers = opts.timers ?? systemTimers;
    return new Promise<void>((resolve, reject) => {
      const off = this.onChange(() => {
        if (!predicate()) return;
        off();
        timers.clearTimeout(timer);
        resolve();
      });
      const timer = timers.setTimeout(() => {
        off();
        reject(new OvsdbClientError('cache-timeout', `ovsdb cache: ${opts.what ?? 'condition'} not seen within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
    });
  }

  /** Every cached row, by table, sorted by uuid (for comparisons and debugging). */
  snapshot(): Record<string, CacheRow[]> {
    const out: Record<string, CacheRow[]> = {};
    for (const t of this.state.values()) out[t.name] = [...t.rows.values()].sort((a, b) => compareAtoms(a._uuid, b._uuid));
    return out;
  }

  /** Converts wire rows (e.g. a `select` result) to cache rows, for comparisons. */
  rowFromWire(table: string, uuid: string, row: Row): CacheRow {
    return newRow(this.tableState(table), uuid, row);
  }

  private tableState(table: string): TableState {
    const t = this.state.get(table);
    if (t === undefined) throw new OvsdbSchemaError(table, `table ${table} is not cached`);
    return t;
  }

  private setRow(t: TableState, uuid: string, old: CacheRow | undefined, next: CacheRow | undefined): void {
    for (const ix of t.indexes.values()) {
      // Unchanged columns keep their value object (modifyRow copies them), so this skips most index work.
      if (old !== undefined && next !== undefined && old[ix.column] === next[ix.column]) continue;
      if (old !== undefined) for (const v of indexValues(ix, old)) ix.values.get(v)?.delete(uuid);
      if (next !== undefined) {
        for (const v of indexValues(ix, next)) {
          let set = ix.values.get(v);
          if (set === undefined) ix.values.set(v, (set = new Set()));
          set.add(uuid);
        }
      }
    }
    if (next === undefined) t.rows.delete(uuid);
    else t.rows.set(uuid, next);
  }

  private emit(changes: readonly RowChange[]): void {
    if (changes.length === 0) return;
    for (const l of this.listeners) {
      try {
        l(changes);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}

function indexDef(table: string, key: string, types: ReadonlyMap<string, ColumnType>): IndexDef {
  const colon = key.indexOf(':');
  const column = colon < 0 ? key : key.slice(0, colon);
  const type = types.get(column);
  if (type === undefined) throw new OvsdbSchemaError(`${table}.${column}`, `index ${key}: column ${column} is not cached`);
  if ((colon >= 0) !== (type.value !== undefined)) {
    throw new OvsdbSchemaError(`${table}.${key}`, colon >= 0 ? `index ${key}: ${column} is not a map` : `index ${key}: index a map by key (${column}:KEY)`);
  }
  return { column, mapKey: colon < 0 ? undefined : key.slice(colon + 1), values: new Map() };
}

function indexValues(ix: Pick<IndexDef, 'column' | 'mapKey'>, row: CacheRow): readonly NativeAtom[] {
  const v = row[ix.column];
  if (ix.mapKey !== undefined) {
    const m = v as Readonly<Record<string, NativeAtom>> | undefined;
    return m !== undefined && Object.hasOwn(m, ix.mapKey) ? [m[ix.mapKey] as NativeAtom] : [];
  }
  if (v === undefined) return [];
  return Array.isArray(v) ? (v as readonly NativeAtom[]) : [v as NativeAtom];
}

/** A row from an initial/insert update: given columns converted, the other monitored ones defaulted. */
function newRow(t: TableState, uuid: string, row: Row): CacheRow {
  // Column names are schema identifiers (never "__proto__": OVSDB reserves names starting with "_").
  const out: Record<string, NativeValue> = { _uuid: uuid };
  for (const c of t.columns) {
    const type = t.types.get(c) as ColumnType;
    const v = row[c];
    out[c] = v === undefined ? defaultNative(type) : toNative(type, v, `${t.name}.${c}`);
  }
  return Object.freeze(out) as CacheRow;
}

/** A new row object: `old` with the diffs of a modify update applied. */
function modifyRow(t: TableState, old: CacheRow, diff: Row): CacheRow {
  const next: Record<string, NativeValue> = { ...old };
  for (const [c, v] of Object.entries(diff)) {
    const type = t.types.get(c);
    if (type === undefined) continue; // a column we did not ask for
    const d = toNative(isCompositeType(type) ? { ...type, min: 0 } : type, v, `${t.name}.${c}`);
    next[c] = isCompositeType(type) ? applyDiff(type, old[c], d) : d;
  }
  return Object.freeze(next) as CacheRow;
}

/** Applies an update2 diff to a set (symmetric difference) or map (add / remove same pair / change value). */
export function applyDiff(type: ColumnType, old: NativeValue, diff: NativeValue): NativeValue {
  if (type.value !== undefined) {
    const out = new Map(Object.entries((old ?? {}) as Record<string, NativeAtom>));
    for (const [k, v] of Object.entries((diff ?? {}) as Record<string, NativeAtom>)) {
      if (!out.has(k) || out.get(k) !== v) out.set(k, v);
      else out.delete(k);
    }
    return Object.freeze(Object.fromEntries(out));
  }
  // Native sets are sorted: merge the two, dropping atoms present in both (O(n), no re-sort of the old set).
  const a = (old ?? []) as readonly NativeAtom[];
  const d = [...((diff ?? []) as readonly NativeAtom[])].sort(compareAtoms);
  const out: NativeAtom[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < d.length) {
    const c = compareAtoms(a[i] as NativeAtom, d[j] as NativeAtom);
    if (c === 0) {
      i++;
      j++;
    } else out.push((c < 0 ? a[i++] : d[j++]) as NativeAtom);
  }
  while (i < a.length) out.push(a[i++] as NativeAtom);
  while (j < d.length) out.push(d[j++] as NativeAtom);
  return Object.freeze(out);
}

export function rowEquals(a: CacheRow, b: CacheRow): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => valueEquals(a[k], b[k]));
}

function valueEquals(a: NativeValue, b: NativeValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && (a as Record<string, NativeAtom>)[k] === (b as Record<string, NativeAtom>)[k]);
  }
  return false;
}
