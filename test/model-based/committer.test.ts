/**
 * A hang the model-based sequences found on real NB, held as a committer
 * test: a change made while a commit is in flight that dirties no row (a
 * fragment set again as it was) bumps the committer's generation, and
 * `sync()` then waited for a commit that was never scheduled, so the
 * controller never went idle. On the simulator backend a commit is never in
 * flight across a turn of the event loop; here the backend holds the apply.
 */
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../backends/backend.ts';
import { SimBackend } from '../../backends/sim/index.ts';
import { Committer } from '../../controller/desired/commit.ts';
import { DesiredState } from '../../controller/desired/store.ts';
import type { Plan } from '../../model/topology/index.ts';
import { RunClock } from './faults.ts';

/** A backend whose next apply waits for `open()`. */
function gated(inner: Backend): Backend & { open(): void; held(): boolean } {
  let gate: (() => void) | undefined;
  return {
    kind: inner.kind,
    apply: async (p: Plan) => {
      await new Promise<void>((r) => (gate = r));
      return inner.apply(p);
    },
    read: () => inner.read(),
    readRows: (keys) => inner.readRows(keys),
    watch: (listener) => inner.watch(listener),
    close: () => inner.close(),
    open: () => gate?.(),
    held: () => gate !== undefined,
  };
}

const fragment = {
  rows: [{ table: 'switch' as const, row: { name: 'ls1', loadBalancers: [], otherConfig: {}, externalIds: {} } }],
};
const turn = () => new Promise<void>((r) => setImmediate(r));

describe('the committer, a change that dirties nothing while a commit is in flight', () => {
  it('sync() resolves once the commit in flight is done', async () => {
    const backend = gated(new SimBackend());
    const store = new DesiredState();
    const c = new Committer({ backend, store, clock: new RunClock() });
    await c.start(() => {});
    const owner = { kind: 'Subnet', name: 'ls1' };
    c.set(owner, fragment);
    while (!backend.held()) await turn();
    // In flight now: the same fragment again changes no row, and someone waits for it.
    c.set(owner, fragment);
    let synced = false;
    const s = c.sync().then(() => (synced = true));
    backend.open();
    for (let i = 0; i < 50 && !synced; i++) await turn();
    expect(synced).toBe(true);
    await s;
    expect((await backend.read()).switch.has('ls1')).toBe(true);
    await c.close();
  });
});
