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
import {
  type CacheRow,
  type RowCodec,
  type UpdateKind,
  rowEquals,
  tableCodec,
  walkUpdatesJson,
  walkUpdatesParsed,
} from './cache-rows.ts';
import { type Timers, systemTimers } from './timers.ts';
import { OvsdbClientError, OvsdbProtocolError, OvsdbSchemaError } from './wire/errors.ts';
import { type NativeAtom, compareAtoms } from './wire/datum.ts';
import type { MonitorCondRequests } from './wire/monitor.ts';
import type { Row } from './wire/operation.ts';
import { type ColumnType, type DatabaseSchema, tableSchema } from './wire/schema.ts';
import type { TableUpdates2 } from './wire/update.ts';

export { type CacheRow, applyDiff, rowEquals } from './cache-rows.ts';

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
  /**
   * Index value → the uuid of the one row that has it, or the uuids of several (most values name one row: no Set for
   * those).
   */
  readonly values: Map<NativeAtom, string | Set<string>>;
}

interface TableState {
  readonly name: string;
  readonly columns: readonly string[];
  readonly types: ReadonlyMap<string, ColumnType>;
  readonly codec: RowCodec;
  readonly rows: Map<string, CacheRow>;
  readonly indexes: ReadonlyMap<string, IndexDef>;
}

/** Where an update message comes from: JSON as received, or parsed wire values. */
type Source = { readonly json: unknown; readonly path: string } | { readonly parsed: TableUpdates2 };

/**
 * @example
 * const cache = new OvsdbCache<nb.Tables>({ schema, tables: { Logical_Switch: undefined }, indexes: { Logical_Switch:
 * ['name', 'external_ids:vendor'] } });
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
    this.onListenerError =
      opts.onListenerError ??
      ((err) =>
        queueMicrotask(() => {
          throw err;
        }));
    for (const [name, cols] of Object.entries(opts.tables)) {
      const ts = tableSchema(opts.schema, name);
      const codec = tableCodec(name, cols === undefined ? Object.keys(ts.columns) : cols, ts.columns);
      const indexes = new Map<string, IndexDef>();
      for (const key of opts.indexes?.[name] ?? []) indexes.set(key, indexDef(name, key, codec.types));
      this.state.set(name, { name, columns: codec.columns, types: codec.types, codec, rows: new Map(), indexes });
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
    const hit = ix.values.get(value);
    const uuids = hit === undefined ? [] : typeof hit === 'string' ? [hit] : [...hit];
    return uuids.map((u) => t.rows.get(u)) as unknown as Tables[T][];
  }

  /** Subscribes to change batches; returns the unsubscribe function. */
  onChange(listener: (changes: readonly RowChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Feeds a monitor event (the handler of `monitorCond`/`monitorCondSince`).
   * An event is applied whole or not at all: every row is decoded before
   * the first one changes, so a malformed message leaves the cache as it was.
   */
  apply(event: MonitorEvent): readonly RowChange[] {
    const full = event.kind === 'reply' && event.found !== true;
    const source: Source =
      event.json === undefined
        ? { parsed: event.updates }
        : { json: event.json, path: event.kind === 'reply' ? 'monitor reply' : 'update' };
    const changes = full ? this.replaceFrom(source) : this.applyFrom(source);
    if (event.lastTxnId !== undefined) this.lastTxnId = event.lastTxnId;
    return changes;
  }

  /** Applies incremental updates (update2/update3, or a monitor_cond_since reply with found=true). */
  applyUpdates(updates: TableUpdates2): readonly RowChange[] {
    return this.applyFrom({ parsed: updates });
  }

  /** Replaces every cached table with `updates` (a full dump): the cache ends equal to it. */
  replaceAll(updates: TableUpdates2): readonly RowChange[] {
    return this.replaceFrom({ parsed: updates });
  }

  private applyFrom(source: Source): readonly RowChange[] {
    // Decode everything first (changes[i] happens in tables[i]), then change the cache.
    const changes: RowChange[] = [];
    const tables: TableState[] = [];
    this.walk(source, (t, uuid, kind, body) => {
      const old = t.rows.get(uuid);
      let next: CacheRow | undefined;
      if (kind === 'delete') {
        if (old === undefined) return;
      } else if (kind === 'modify') {
        if (old === undefined)
          throw new OvsdbProtocolError(`modify of ${t.name} row ${uuid}, which the cache does not have`);
        next = 'json' in source ? t.codec.modifyJson(old, body, t.name) : t.codec.modifyWire(old, body as Row);
      } else {
        next = this.rowOf(source, t, uuid, body);
      }
      changes.push({ table: t.name, uuid, old, new: next });
      tables.push(t);
    });
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i] as RowChange;
      this.setRow(tables[i] as TableState, c.uuid, c.old, c.new);
    }
    this.emit(changes);
    return changes;
  }

  private replaceFrom(source: Source): readonly RowChange[] {
    const incoming = new Map<TableState, Map<string, CacheRow | undefined>>();
    for (const t of this.state.values()) incoming.set(t, new Map());
    this.walk(source, (t, uuid, kind, body) => {
      (incoming.get(t) as Map<string, CacheRow | undefined>).set(
        uuid,
        kind === 'delete' ? undefined : this.rowOf(source, t, uuid, body),
      );
    });
    const changes: RowChange[] = [];
    for (const [t, rows] of incoming) {
      for (const [uuid, old] of [...t.rows]) {
        if (rows.get(uuid) !== undefined) continue;
        this.setRow(t, uuid, old, undefined);
        changes.push({ table: t.name, uuid, old, new: undefined });
      }
      for (const [uuid, next] of rows) {
        if (next === undefined) continue;
        const old = t.rows.get(uuid);
        if (old !== undefined && rowEquals(old, next)) continue;
        this.setRow(t, uuid, old, next);
        changes.push({ table: t.name, uuid, old, new: next });
      }
    }
    this.emit(changes);
    return changes;
  }

  private walk(source: Source, visit: (t: TableState, uuid: string, kind: UpdateKind, body: unknown) => void): void {
    const each = (table: string, uuid: string, kind: UpdateKind, body: unknown) =>
      visit(this.tableState(table), uuid, kind, body);
    if ('json' in source) walkUpdatesJson(source.json, source.path, each);
    else walkUpdatesParsed(source.parsed, each);
  }

  /** A whole row (initial/insert; in a full dump, any kind but delete). */
  private rowOf(source: Source, t: TableState, uuid: string, body: unknown): CacheRow {
    return 'json' in source ? t.codec.fromJson(uuid, body, t.name) : t.codec.fromWire(uuid, body as Row);
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
        reject(
          new OvsdbClientError(
            'cache-timeout',
            `ovsdb cache: ${opts.what ?? 'condition'} not seen within ${opts.timeoutMs} ms`,
          ),
        );
      }, opts.timeoutMs);
    });
  }

  /** Every cached row, by table, sorted by uuid (for comparisons and debugging). */
  snapshot(): Record<string, CacheRow[]> {
    const out: Record<string, CacheRow[]> = {};
    for (const t of this.state.values())
      out[t.name] = [...t.rows.values()].sort((a, b) => compareAtoms(a._uuid, b._uuid));
    return out;
  }

  /** Converts wire rows (e.g. a `select` result) to cache rows, for comparisons. */
  rowFromWire(table: string, uuid: string, row: Row): CacheRow {
    return this.tableState(table).codec.fromWire(uuid, row);
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
      if (old !== undefined) for (const v of indexValues(ix, old)) unindex(ix.values, v, uuid);
      if (next !== undefined) for (const v of indexValues(ix, next)) index(ix.values, v, uuid);
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
  if (type === undefined)
    throw new OvsdbSchemaError(`${table}.${column}`, `index ${key}: column ${column} is not cached`);
  if (colon >= 0 !== (type.value !== undefined)) {
    throw new OvsdbSchemaError(
      `${table}.${key}`,
      colon >= 0 ? `index ${key}: ${column} is not a map` : `index ${key}: index a map by key (${column}:KEY)`,
    );
  }
  return { column, mapKey: colon < 0 ? undefined : key.slice(colon + 1), values: new Map() };
}

function index(values: Map<NativeAtom, string | Set<string>>, v: NativeAtom, uuid: string): void {
  const hit = values.get(v);
  if (hit === undefined) values.set(v, uuid);
  else if (typeof hit !== 'string') hit.add(uuid);
  else if (hit !== uuid) values.set(v, new Set([hit, uuid]));
}

function unindex(values: Map<NativeAtom, string | Set<string>>, v: NativeAtom, uuid: string): void {
  const hit = values.get(v);
  if (hit === uuid) values.delete(v);
  else if (typeof hit === 'object') {
    hit.delete(uuid);
    if (hit.size === 0) values.delete(v);
  }
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
