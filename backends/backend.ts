/**
 * The one interface every backend implements (real OVN through its
 * Northbound DB, the in-process simulator). Deliberately small: apply a plan,
 * read back what is there, close. Probing and tracing are capabilities of
 * individual backends, not of this interface.
 */
import type { Plan, Topology } from '../model/topology/index.ts';

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
  close(): Promise<void>;
}
