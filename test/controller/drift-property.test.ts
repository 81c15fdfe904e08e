/**
 * The committer against another writer, on the simulator: random sequences
 * of fragments set and deleted, rows of ours deleted or changed behind its
 * back (ports, port group members), and applies that fail, in any order.
 * Once the committer has synced, the backend holds exactly what the store
 * wants, and the only full read was the one at start-up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../backends/backend.ts';
import { SimBackend } from '../../backends/sim/index.ts';
import { type LogicalSwitchPort, type Plan, plan } from '../../model/topology/index.ts';
import { type CommitClock, Committer } from '../../controller/desired/commit.ts';
import { DesiredState } from '../../controller/desired/store.ts';
import { fcParams } from '../fc.ts';

/** Virtual time: every timer runs on the next turn, whatever its delay (retries included). */
const clock: CommitClock = {
  now: () => 0,
  setTimeout: (fn) => setImmediate(fn),
  clearTimeout: (h) => clearImmediate(h as NodeJS.Immediate),
};

const PODS = 6;

function portRow(i: number, v: number): LogicalSwitchPort {
  return {
    name: `p${i}`,
    switch: 'sw',
    type: '',
    addresses: [`0a:58:0a:10:00:0${i} 10.16.0.${i + 10 + v}`],
    portSecurity: [],
    options: {},
    externalIds: {},
  };
}

type Command =
  | { readonly kind: 'set'; readonly pod: number; readonly version: number }
  | { readonly kind: 'delete'; readonly pod: number }
  | { readonly kind: 'tamper-delete'; readonly pod: number }
  | { readonly kind: 'tamper-change'; readonly pod: number }
  | { readonly kind: 'tamper-member'; readonly pod: number }
  | { readonly kind: 'fail-next' }
  | { readonly kind: 'turn' };

const pod = fc.integer({ min: 0, max: PODS - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), pod, version: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('delete' as const), pod }),
  fc.record({ kind: fc.constant('tamper-delete' as const), pod }),
  fc.record({ kind: fc.constant('tamper-change' as const), pod }),
  fc.record({ kind: fc.constant('tamper-member' as const), pod }),
  fc.constant({ kind: 'fail-next' as const }),
  fc.constant({ kind: 'turn' as const }),
);

/** Another writer, as someone editing NB by hand would: only rows that are there. */
async function tamper(sim: SimBackend, c: Command): Promise<void> {
  if (c.kind !== 'tamper-delete' && c.kind !== 'tamper-change' && c.kind !== 'tamper-member') return;
  const t = await sim.read();
  const name = `p${c.pod}`;
  if (c.kind === 'tamper-member') {
    if (t.portGroup.get('pg')?.ports.includes(name))
      sim.tamper([{ op: 'mutate', table: 'portGroup', key: 'pg', delete: { ports: [name] } }]);
    return;
  }
  if (!t.switchPort.has(name)) return;
  sim.tamper([
    c.kind === 'tamper-delete'
      ? { op: 'delete', table: 'switchPort', key: name }
      : { op: 'update', table: 'switchPort', key: name, changes: { addresses: ['02:00:00:00:00:01 192.0.2.1'] } },
  ]);
}

async function run(commands: readonly Command[]): Promise<void> {
  const sim = new SimBackend();
  let failNext = false;
  let reads = 0;
  const backend: Backend = {
    kind: 'sim',
    apply: async (p: Plan, o) => {
      if (failNext) {
        failNext = false;
        throw new Error('injected failure');
      }
      return sim.apply(p, o);
    },
    read: () => {
      reads++;
      return sim.read();
    },
    readRows: (keys) => sim.readRows(keys),
    watch: (listener) => sim.watch(listener),
    close: () => sim.close(),
  };
  const store = new DesiredState();
  const c = new Committer({ backend, store, clock, retry: { initialMs: 1, maxMs: 1 } });
  await c.start(() => {
    c.set(
      { kind: 'Subnet', name: 'sw' },
      {
        rows: [
          { table: 'switch', row: { name: 'sw', loadBalancers: [], otherConfig: {}, externalIds: {} } },
          { table: 'portGroup', row: { name: 'pg', ports: [], externalIds: {} } },
        ],
      },
    );
  });
  for (const cmd of commands) {
    if (cmd.kind === 'set')
      c.set(
        { kind: 'Pod', namespace: 'default', name: `p${cmd.pod}` },
        {
          rows: [{ table: 'switchPort', row: portRow(cmd.pod, cmd.version) }],
          contributions: [{ table: 'portGroup', key: 'pg', column: 'ports', members: [`p${cmd.pod}`] }],
        },
      );
    else if (cmd.kind === 'delete') c.delete({ kind: 'Pod', namespace: 'default', name: `p${cmd.pod}` });
    else if (cmd.kind === 'fail-next') failNext = true;
    else if (cmd.kind === 'turn') await new Promise((r) => setImmediate(r));
    else await tamper(sim, cmd);
  }
  await c.sync();
  expect(plan(await sim.read(), store.topology())).toEqual([]);
  expect(reads).toBe(1);
  await c.close();
}

describe('committer and another writer (simulator)', () => {
  it('whatever the other writer does, and whatever fails, the backend ends as the store wants it', async () => {
    await fc.assert(fc.asyncProperty(fc.array(command, { maxLength: 40 }), run), fcParams(200));
  });
});
