/**
 * The one interface every backend implements (real OVN through its
 * Northbound DB, the in-process simulator). Deliberately small: apply a plan,
 * read back what is there (all of it, or some rows), watch what changes,
 * close. Probing and tracing are capabilities of individual backends, not of
 * this interface.
 */
import type { Plan, TableName, Tables, Topology } from '../model/topology/index.ts';

export interface ApplyOptions {
  /** A label for logs and metrics (the OVSDB `comment` of the transactions). */
  readonly label?: string;
  /**
   * A deadline. When it aborts, apply stops sending and rejects; the error
   * says how much of the plan was committed and whether the step in flight
   * may have been (backends that apply in one step check it before starting).
   */
  readonly signal?: AbortSignal;
}

export interface ApplyResult {
  /** Operations of the plan that were applied. */
  readonly operations: number;
  /** Transactions (or equivalent atomic steps) it took. */
  readonly transactions: number;
}

export interface Backend {
  /** e.g. 'sim', 'ovn'. */
  readonly kind: string;
  /**
   * Apply a plan made by `plan(await read(), desired)` (or by the controller's
   * dirty-row planning). After it resolves, `read()` reflects it
   * (read-your-writes) and `plan(read(), desired)` is empty.
   *
   * Atomicity: in `result.transactions` atomic steps, each all or nothing,
   * cut at operation boundaries; the backend is reference-consistent at every
   * step boundary (model/topology/plan.ts, "Atomicity"). When apply fails,
   * the steps before the failing one are applied and `read()` says what is.
   */
  apply(plan: Plan, opts?: ApplyOptions): Promise<ApplyResult>;
  /** The topology as the backend holds it: only rows kovn owns. */
  read(): Promise<Topology>;
  /**
   * Some rows as the backend holds them now (undefined: not there), for a
   * caller that knows which rows it may be wrong about (after a failed apply,
   * the rows that apply touched), so that it need not read everything.
   */
  readRows(keys: RowKeys): Promise<RowsRead>;
  /**
   * Subscribes to changes of the rows kovn owns, in the order the backend
   * saw them; returns the unsubscribe function. Every change made by anyone
   * but this backend's own `apply` is reported; a backend may also report
   * the changes its `apply` made (real OVN sees them come back through its
   * monitor like any other), so a listener must take a change that matches
   * what it wrote as harmless. A change to a row's parent that moves it, or
   * to a row its columns name, is reported as a change of the row itself.
   */
  watch(listener: (changes: readonly RowChange[]) => void): () => void;
  close(): Promise<void>;
}

/** Table → keys of rows to read. */
export type RowKeys = ReadonlyMap<TableName, ReadonlySet<string>>;

/** Table → key → the row as the backend holds it (undefined: not there). */
export type RowsRead = Map<TableName, Map<string, unknown>>;

/**
 * One row of kovn's as it is now: inserted or changed (`row` set) or
 * deleted (`row` undefined).
 *
 * @example
 * backend.watch((changes) => { for (const c of changes) console.log(c.table, c.key, c.row ? 'is' : 'gone'); });
 */
export type RowChange = {
  [T in TableName]: { readonly table: T; readonly key: string; readonly row: Tables[T] | undefined };
}[TableName];
