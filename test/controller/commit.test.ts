/**
 * The change path end to end on the simulator backend: fragments → dirty
 * rows → a plan of only those rows (membership by mutate) → one apply per
 * batch, retried when it fails, with the start-up pass removing orphans and
 * writing nothing when nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import type { Backend, RowChange, RowKeys } from '../../backends/backend.ts';
import {
  buildTopology,
  type LogicalSwitch,
  type LogicalSwitchPort,
  type Plan,
  type PortGroup,
  plan,
} from '../../model/topology/index.ts';
import {
  type CommitClock,
  Committer,
  CommitterClosedError,
  type CommitterOptions,
} from '../../controller/desired/commit.ts';
import { applyToShadow, emptyShadow, planDirty } from '../../controller/desired/delta.ts';
import { DesiredState } from '../../controller/desired/store.ts';

/** A clock whose timers run when the test says so. */
class ManualClock implements CommitClock {
  private t = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Advance time, running due timers (and letting the promises they start settle). */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    for (;;) {
      const due = [...this.timers].filter(([, x]) => x.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.timers.delete(due[0]);
      this.t = Math.max(this.t, due[1].at);
      due[1].fn();
      for (let i = 0; i < 20; i++) await Promise.resolve();
      await new Promise((r) => setImmediate(r));
    }
    this.t = until;
  }
}

const ls = (name: string): LogicalSwitch => ({ name, loadBalancers: [], otherConfig: {}, externalIds: {} });
const lsp = (name: string): LogicalSwitchPort => ({
  name,
  switch: 'ovn-default',
  type: '',
  addresses: [],
  portSecurity: [],
  options: {},
  externalIds: {},
});
const pg = (name: string): PortGroup => ({ name, ports: [], externalIds: {} });

function podFragment(name: string) {
  return {
    rows: [{ table: 'switchPort' as const, row: lsp(name) }],
    contributions: [{ table: 'portGroup' as const, key: 'np.allow', column: 'ports', members: [name] }],
  };
}

/** A backend that records every plan it is given and can be told to fail. */
class RecordingBackend implements Backend {
  readonly kind = 'recording';
  readonly plans: Plan[] = [];
  /** Full reads, and the rows read one by one (`table key`). */
  reads = 0;
  readonly rowsRead: string[] = [];
  failNext = 0;
  constructor(readonly inner: SimBackend = new SimBackend()) {}
  async apply(p: Plan) {
    this.plans.push(p);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('injected failure');
    }
    return this.inner.apply(p);
  }
  read() {
    this.reads++;
    return this.inner.read();
  }
  readRows(keys: RowKeys) {
    for (const [table, ks] of keys) for (const k of ks) this.rowsRead.push(`${table} ${k}`);
    return this.inner.readRows(keys);
  }
  watch(listener: (changes: readonly RowChange[]) => void) {
    return this.inner.watch(listener);
  }
  close() {
    return this.inner.close();
  }
}

describe('planDirty', () => {
  it('a pod joining a port group is one create and one mutate naming that pod only', () => {
    const store = new DesiredState();
    store.set({ kind: 'Subnet', name: 'ovn-default' }, { rows: [{ table: 'switch', row: ls('ovn-default') }] });
    store.set(
      { kind: 'NetworkPolicy', namespace: 'default', name: 'allow' },
      { rows: [{ table: 'portGroup', row: pg('np.allow') }] },
    );
    for (let i = 0; i < 100; i++) store.set({ kind: 'Pod', namespace: 'default', name: `p${i}` }, podFragment(`p${i}`));
    const shadow = emptyShadow();
    applyToShadow(shadow, planDirty(store, shadow, store.takeDirty()).after);
    store.set({ kind: 'Pod', namespace: 'default', name: 'new' }, podFragment('new'));
    const { plan: p, after } = planDirty(store, shadow, store.takeDirty());
    applyToShadow(shadow, after);
    expect(p).toEqual([
      { op: 'create', table: 'switchPort', key: 'new', row: lsp('new') },
      { op: 'mutate', table: 'portGroup', key: 'np.allow', insert: { ports: ['new'] } },
    ]);
    store.delete({ kind: 'Pod', namespace: 'default', name: 'p7' });
    expect(planDirty(store, shadow, store.takeDirty()).plan).toEqual([
      { op: 'mutate', table: 'portGroup', key: 'np.allow', delete: { ports: ['p7'] } },
      { op: 'delete', table: 'switchPort', key: 'p7' },
    ]);
  });
});

/** Runs the clock's timers until `p` settles (the committer's steps are promise chains between timers). */
async function settle<T>(clock: ManualClock, p: Promise<T>): Promise<T> {
  let done = false;
  const out = p.finally(() => {
    done = true;
  });
  for (let i = 0; i < 100 && !done; i++) await clock.advance(0);
  return out;
}

describe('Committer', () => {
  async function started(backend: Backend, extra: Partial<CommitterOptions> = {}) {
    const clock = new ManualClock();
    const store = new DesiredState();
    const c = new Committer({ backend, store, clock, retry: { initialMs: 100, maxMs: 1000 }, ...extra });
    const done = c.start(() => {
      c.set({ kind: 'Subnet', name: 'ovn-default' }, { rows: [{ table: 'switch', row: ls('ovn-default') }] });
      c.set(
        { kind: 'NetworkPolicy', namespace: 'default', name: 'allow' },
        { rows: [{ table: 'portGroup', row: pg('np.allow') }] },
      );
    });
    return { c, clock, store, start: await settle(clock, done) };
  }

  it('gathers a storm of changes into one apply and hands the backend only those rows', async () => {
    const be = new RecordingBackend();
    const { c, clock, start, store } = await started(be);
    expect(start.operations).toBe(2);
    for (let i = 0; i < 50; i++) c.set({ kind: 'Pod', namespace: 'default', name: `p${i}` }, podFragment(`p${i}`));
    await settle(clock, c.sync());
    expect(be.plans).toHaveLength(2);
    expect(be.plans[1]).toHaveLength(51);
    expect(be.plans[1]!.filter((o) => o.op === 'mutate')).toHaveLength(1);
    expect(plan(await be.read(), store.topology())).toEqual([]);
    expect((await be.read()).portGroup.get('np.allow')?.ports).toHaveLength(50);
    expect(c.stats).toMatchObject({ flushes: 2, operations: 53, failures: 0, pendingRows: 0 });
  });

  it('retries a failed apply after backoff, from what the backend holds, and sync waits for it', async () => {
    const be = new RecordingBackend();
    const errors: number[] = [];
    const { c, clock, store } = await started(be, { onError: (_e, i) => errors.push(i.attempt) });
    be.failNext = 2;
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    let synced = false;
    const s = c.sync().then(() => {
      synced = true;
    });
    await clock.advance(0);
    expect(errors).toEqual([1]);
    expect(synced).toBe(false);
    await clock.advance(99);
    expect(errors).toEqual([1]);
    await clock.advance(1);
    expect(errors).toEqual([1, 2]);
    await clock.advance(200);
    await s;
    expect(synced).toBe(true);
    expect(plan(await be.read(), store.topology())).toEqual([]);
    expect(c.stats.failures).toBe(2);
  });

  it('a failed apply reads back only the rows it touched, not the whole backend', async () => {
    const be = new RecordingBackend();
    const { c, clock, store } = await started(be);
    expect(be.reads).toBe(1);
    be.failNext = 1;
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    await clock.advance(0);
    expect(c.stats.failures).toBe(1);
    await clock.advance(100);
    await settle(clock, c.sync());
    expect(be.reads).toBe(1);
    expect(be.rowsRead.sort()).toEqual(['portGroup np.allow', 'switchPort a']);
    expect(plan(await be.read(), store.topology())).toEqual([]);
  });

  it('a row of ours deleted behind its back is put back, without a restart', async () => {
    const be = new RecordingBackend();
    const { c, clock, store } = await started(be);
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    await settle(clock, c.sync());
    const applies = be.plans.length;
    be.inner.tamper([
      { op: 'mutate', table: 'portGroup', key: 'np.allow', delete: { ports: ['a'] } },
      { op: 'delete', table: 'switchPort', key: 'a' },
    ]);
    await clock.advance(0);
    expect(be.plans.slice(applies)).toEqual([
      [
        { op: 'create', table: 'switchPort', key: 'a', row: lsp('a') },
        { op: 'mutate', table: 'portGroup', key: 'np.allow', insert: { ports: ['a'] } },
      ],
    ]);
    expect(be.reads).toBe(1);
    expect(plan(await be.read(), store.topology())).toEqual([]);
  });

  it('a row of ours changed behind its back is put back; what matches the store is left alone', async () => {
    const be = new RecordingBackend();
    const { c, clock, store } = await started(be);
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    await settle(clock, c.sync());
    const applies = be.plans.length;
    // A change that leaves the row as the store wants it needs no write.
    be.inner.tamper([{ op: 'update', table: 'switchPort', key: 'a', changes: { addresses: [] } }]);
    await clock.advance(0);
    expect(be.plans).toHaveLength(applies);
    be.inner.tamper([
      { op: 'update', table: 'switchPort', key: 'a', changes: { addresses: ['0a:58:0a:10:00:09 10.16.0.9'] } },
    ]);
    await clock.advance(0);
    expect(be.plans.slice(applies)).toEqual([
      [{ op: 'update', table: 'switchPort', key: 'a', changes: { addresses: [] } }],
    ]);
    expect(plan(await be.read(), store.topology())).toEqual([]);
    expect(c.stats.drifted).toBe(1);
  });

  it('a row changed behind its back while a batch writing it is in flight is still put back', async () => {
    const be = new RecordingBackend();
    const { c, clock, store } = await started(be);
    // Another writer deletes the port right after the batch creating it committed, before apply returns.
    const apply = be.apply.bind(be);
    let tampered = false;
    be.apply = async (p: Plan) => {
      const r = await apply(p);
      if (!tampered && p.some((o) => o.op === 'create' && o.key === 'a')) {
        tampered = true;
        be.inner.tamper([{ op: 'delete', table: 'switchPort', key: 'a' }]);
      }
      return r;
    };
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    await settle(clock, c.sync());
    await clock.advance(0);
    expect(tampered).toBe(true);
    expect(plan(await be.read(), store.topology())).toEqual([]);
  });

  it('close ends while the backend refuses every apply: no retry after it, and every waiting sync rejects', async () => {
    const be = new RecordingBackend();
    const { c, clock } = await started(be);
    be.failNext = Number.POSITIVE_INFINITY;
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    const waiting = c.sync().then(
      () => 'committed',
      (e: unknown) => e,
    );
    await clock.advance(1_000);
    const refused = be.plans.length;
    expect(refused).toBeGreaterThan(2);
    await c.close();
    expect(await waiting).toBeInstanceOf(CommitterClosedError);
    await expect(c.sync()).rejects.toBeInstanceOf(CommitterClosedError);
    await clock.advance(10_000);
    expect(be.plans).toHaveLength(refused);
    expect(clock.pending).toBe(0);
  });

  it('close waits for a batch in flight only for its grace time', async () => {
    const inner = new RecordingBackend();
    let hang = false;
    const be: Backend = {
      kind: 'hanging',
      apply: (p) => (hang ? new Promise(() => {}) : inner.apply(p)),
      read: () => inner.read(),
      readRows: (keys) => inner.readRows(keys),
      watch: (listener) => inner.watch(listener),
      close: () => inner.close(),
    };
    const { c, clock } = await started(be, { closeGraceMs: 2_000 });
    hang = true;
    c.set({ kind: 'Pod', namespace: 'default', name: 'a' }, podFragment('a'));
    const waiting = c.sync().catch((e: unknown) => e);
    await clock.advance(0);
    let closed = false;
    const closing = c.close().then(() => (closed = true));
    await clock.advance(1_999);
    expect(closed).toBe(false);
    await clock.advance(1);
    await closing;
    expect(await waiting).toBeInstanceOf(CommitterClosedError);
  });

  it('start-up removes rows nobody explains and writes nothing when the backend already matches', async () => {
    const leftover = buildTopology({ switch: [ls('ovn-default'), ls('orphan')], portGroup: [pg('np.allow')] }).topology;
    const be = new RecordingBackend(new SimBackend({ topology: leftover }));
    const first = await started(be);
    expect(first.start.operations).toBe(1);
    expect(be.plans[0]).toEqual([{ op: 'delete', table: 'switch', key: 'orphan' }]);
    await first.c.close();
    // A restart over the same backend: the same desired state, nothing to write.
    const again = await started(be);
    expect(again.start.operations).toBe(0);
    expect(be.plans).toHaveLength(1);
  });
});
