/**
 * The simulator behind the `Backend` interface. It holds the topology's
 * tables and applies a plan in the size of the plan: the model's
 * `resolvePlan` works out the end state of the rows the plan touches (all or
 * nothing: a bad operation throws before anything changes), and those rows
 * are written into the tables in place. A value handed out never changes
 * under its holder: `read()` hands out copies, made then (a read is the size
 * of the database however it is done, and a write after it stays the size
 * of the write: at 150k ports, copying the port table on the first write
 * after a restart's read made that one pod cost 150 ms); a compiled network
 * holds the tables themselves, and a table it holds is copied once before
 * its next change (probes come after many changes, compiles are rarer than
 * writes). A stream of changes with no probe in between copies nothing. The
 * network is compiled lazily, once per applied plan, for probes and traces.
 *
 * Watching: `apply` reports nothing (its caller knows what it wrote); a
 * change made behind kovn's back, by `tamper` (a foreign writer, as someone
 * editing NB by hand would be), is reported row by row. Rows of other
 * owners do not exist here: the simulator holds only kovn's topology.
 */
import {
  emptyTopology,
  type Plan,
  resolvePlan,
  type TableName,
  type Topology,
  writeOutcome,
} from '../../model/topology/index.ts';
import {
  compileNetwork,
  simulate,
  type CompileOptions,
  type SimNetwork,
  type SimResult,
  type Selector,
} from '../../sim/index.ts';
import type { ApplyOptions, ApplyResult, Backend, RowChange, RowKeys, RowsRead } from '../backend.ts';
import type { ProbeRequest, ProbeVerdict, Prober } from '../probe.ts';

export interface SimBackendOptions {
  /** Start from this topology instead of an empty one. */
  readonly topology?: Topology;
  readonly compile?: CompileOptions;
}

export interface SimTraceRequest extends ProbeRequest {
  readonly select?: Selector;
}

/**
 * @example
 * const sim = new SimBackend();
 * await sim.apply(plan(await sim.read(), desired));
 * (await sim.probe({ inport: 'web-0.default', packet })).verdict; // 'delivered'
 */
export class SimBackend implements Backend, Prober {
  readonly kind = 'sim';
  private readonly tables: Record<TableName, Map<string, unknown>>;
  /** Tables whose current Map a compiled network holds: copied before their next change. */
  private readonly shared = new Set<TableName>();
  private net: SimNetwork | undefined;
  private closed = false;
  /** Rows copied for copy-on-write since construction (what a change cost beyond its own rows). */
  private copied = 0;
  private readonly listeners = new Set<(changes: readonly RowChange[]) => void>();

  constructor(private readonly opts: SimBackendOptions = {}) {
    const start = opts.topology ?? emptyTopology();
    this.tables = {} as Record<TableName, Map<string, unknown>>;
    for (const table of Object.keys(start) as TableName[]) {
      this.tables[table] = start[table] as Map<string, unknown>;
      // The caller's maps are theirs: never written in place.
      this.shared.add(table);
    }
  }

  async apply(p: Plan, _opts?: ApplyOptions): Promise<ApplyResult> {
    this.assertOpen();
    this.write(p);
    return { operations: p.length, transactions: p.length === 0 ? 0 : 1 };
  }

  async read(): Promise<Topology> {
    this.assertOpen();
    const out = {} as Record<TableName, Map<string, unknown>>;
    for (const table of Object.keys(this.tables) as TableName[]) {
      out[table] = new Map(this.tables[table]);
      this.copied += out[table].size;
    }
    return out as unknown as Topology;
  }

  async readRows(keys: RowKeys): Promise<RowsRead> {
    this.assertOpen();
    const out: RowsRead = new Map();
    for (const [table, ks] of keys) {
      const rows = new Map<string, unknown>();
      for (const k of ks) rows.set(k, this.tables[table].get(k));
      out.set(table, rows);
    }
    return out;
  }

  watch(listener: (changes: readonly RowChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Another writer changes kovn's rows (all or nothing, as `apply`), and the
   * watchers are told what each row it touched is now.
   *
   * @example sim.tamper([{ op: 'delete', table: 'switchPort', key: 'web-0.default' }]);
   */
  tamper(p: Plan): void {
    this.assertOpen();
    const outcome = this.write(p);
    const changes: RowChange[] = [];
    for (const [table, rows] of outcome) for (const [key, row] of rows) changes.push({ table, key, row } as RowChange);
    if (changes.length > 0) for (const l of this.listeners) l(changes);
  }

  /** Writes a plan (all or nothing: resolvePlan throws a PlanError before anything is written); the rows it left. */
  private write(p: Plan): ReturnType<typeof resolvePlan> {
    const outcome = resolvePlan(p, (table, key) => this.tables[table].get(key));
    writeOutcome(outcome, (table) => this.writable(table));
    if (p.length > 0) this.net = undefined;
    return outcome;
  }

  /** Rows copied so far to keep handed-out tables unchanged (by read, and before a write to a compiled table). */
  get rowsCopied(): number {
    return this.copied;
  }

  private snapshot(): Topology {
    for (const table of Object.keys(this.tables) as TableName[]) this.shared.add(table);
    return { ...this.tables } as unknown as Topology;
  }

  private writable(table: TableName): Map<string, unknown> {
    if (this.shared.delete(table)) {
      const copy = new Map(this.tables[table]);
      this.copied += copy.size;
      this.tables[table] = copy;
    }
    return this.tables[table];
  }

  async close(): Promise<void> {
    this.closed = true;
    this.net = undefined;
  }

  /** The compiled network of the current topology. */
  network(): SimNetwork {
    this.assertOpen();
    this.net ??= compileNetwork(this.snapshot(), this.opts.compile);
    return this.net;
  }

  /** The full simulation result, stage by stage. */
  trace(req: SimTraceRequest): SimResult {
    return simulate(this.network(), {
      inport: req.inport,
      packet: req.packet,
      ...(req.select ? { select: req.select } : {}),
    });
  }

  async probe(req: ProbeRequest): Promise<ProbeVerdict> {
    const r = this.trace(req);
    return { verdict: r.verdict, outputs: r.outputs.map((o) => ({ outport: o.port, packet: o.packet })) };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('SimBackend: used after close()');
  }
}
