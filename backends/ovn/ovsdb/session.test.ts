/**
 * OvsdbSession against a real standalone ovsdb-server (NB): read-your-writes,
 * the cache under a storm of mixed writes from two clients, and a server
 * killed and restarted under writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, requireOvn, startOvsdbServer, NB_SCHEMA, type OvsdbServer } from '../control-plane/index.ts';
import { fcSeed } from '../../../test/fc.ts';
import { OvsdbClient } from './client.ts';
import { OpBuilder } from './build.ts';
import { OvsdbSession } from './session.ts';
import type { Operation } from './wire/operation.ts';
import type { nb } from './schema/index.ts';
import { countByKey, freshSelect, guardedSwitch, inParallel, prng, removeTempDir } from './testing/nb-helpers.ts';

const DB = 'OVN_Northbound';
const TABLES = {
  Logical_Switch: ['name', 'ports', 'external_ids', 'other_config'],
  Logical_Switch_Port: ['name', 'addresses', 'external_ids'],
} as const;

function open(remotes: string) {
  return OvsdbSession.open<nb.Tables>({
    remotes,
    db: DB,
    tables: TABLES,
    indexes: { Logical_Switch: ['name', 'external_ids:kovn-key'], Logical_Switch_Port: ['name'] },
    backoff: { initialMs: 50, maxMs: 400 },
    probeIntervalMs: 2000,
  });
}

describe.skipIf(!requireOvn('ovsdb session'))('OvsdbSession against a standalone ovsdb-server', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let other: OvsdbClient;
  let s: OvsdbSession<nb.Tables>;

  beforeAll(async () => {
    dir = await makeTempDir('ovs');
    server = await startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA });
    other = await OvsdbClient.connect(server.remote);
    s = await open(server.remote);
  });
  afterAll(async () => {
    s?.close();
    other?.close();
    await server?.stop();
    await removeTempDir(dir);
  });

  it('read-your-writes: when transact resolves, the cache already shows inserts, updates and deletes', async () => {
    const [ls] = await s.transact([
      s.ops.insert('Logical_Switch', { name: 'ryw', external_ids: { 'kovn-key': 'ryw' } }),
    ]);
    expect(s.cache.get('Logical_Switch', ls.uuid)?.name).toBe('ryw');
    expect(s.cache.lookup('Logical_Switch', 'external_ids:kovn-key', 'ryw').map((r) => r._uuid)).toEqual([ls.uuid]);
    await s.transact([
      s.ops.insert('Logical_Switch_Port', { name: 'ryw-p' }, { uuidName: 'p' }),
      s.ops.mutate('Logical_Switch', [s.ops.whereUuid(ls.uuid)], [['ports', 'insert', ['p']]]),
      s.ops.update('Logical_Switch', [s.ops.whereUuid(ls.uuid)], { other_config: { x: '1' } }),
    ]);
    const row = s.cache.get('Logical_Switch', ls.uuid);
    expect(row?.other_config).toEqual({ x: '1' });
    expect(row?.ports.map((p) => s.cache.get('Logical_Switch_Port', p)?.name)).toEqual(['ryw-p']);
    await s.transact([s.ops.delete('Logical_Switch', [s.ops.whereUuid(ls.uuid)])]);
    expect(s.cache.has('Logical_Switch', ls.uuid)).toBe(false);
    expect(s.cache.lookup('Logical_Switch_Port', 'name', 'ryw-p')).toEqual([]); // garbage-collected port gone too
  });

  it('the cache equals a fresh select after a storm of 1,000 mixed writes from two clients', async () => {
    const rnd = prng(fcSeed());
    const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(rnd() * xs.length)];
    const b = new OpBuilder<nb.Tables>(s.schema);
    let n = 0;
    const makeOps = (): Operation[] => {
      const switches = [...s.cache.table('Logical_Switch').values()];
      const target = pick(switches);
      const where = target === undefined ? [] : [b.whereUuid(target._uuid)];
      const r = rnd();
      const id = n++;
      if (r < 0.25 || target === undefined) {
        const ports = Math.floor(rnd() * 3);
        return [
          b.insert('Logical_Switch', {
            name: `storm-${id}`,
            ports: Array.from({ length: ports }, (_, k) => `p${k}`),
            external_ids: { vendor: 'kovn', n: String(id) },
          }),
          ...Array.from({ length: ports }, (_, k) =>
            b.insert(
              'Logical_Switch_Port',
              {
                name: `storm-${id}-${k}`,
                addresses: [`00:00:00:00:${(id % 256).toString(16).padStart(2, '0')}:0${k}`],
              },
              { uuidName: `p${k}` },
            ),
          ),
        ];
      }
      if (r < 0.45)
        return [
          b.update('Logical_Switch', where, {
            other_config: { k: String(Math.floor(rnd() * 5)), [`o${id % 3}`]: 'x' },
          }),
        ];
      if (r < 0.65)
        return [
          b.mutate('Logical_Switch', where, [
            ['external_ids', rnd() < 0.5 ? 'insert' : 'delete', { [`e${id % 4}`]: String(id % 2) }],
          ]),
        ];
      if (r < 0.8)
        return [
          b.insert('Logical_Switch_Port', { name: `storm-${id}-x` }, { uuidName: 'np' }),
          b.mutate('Logical_Switch', where, [['ports', 'insert', ['np']]]),
        ];
      const port = pick(target.ports);
      if (r < 0.9 && port !== undefined) return [b.mutate('Logical_Switch', where, [['ports', 'delete', [port]]])];
      return [b.delete('Logical_Switch', where)];
    };
    await inParallel(
      Array.from({ length: 1000 }, (_, i) => i),
      8,
      async (i) => {
        const ops = makeOps();
        if (i % 2 === 0) await s.transact(ops);
        else await other.transact(DB, ops);
      },
    );
    // A round trip of ours after every write of the other client: the server flushed their updates to us first.
    await s.transact([s.ops.comment('barrier')]);
    const fresh = await freshSelect(other, s.cache);
    expect(fresh.Logical_Switch?.length).toBeGreaterThan(10);
    expect(s.cache.snapshot()).toEqual(fresh);
    for (const row of s.cache.table('Logical_Switch').values())
      expect(s.cache.lookup('Logical_Switch', 'name', row.name)).toContain(row);
  });
});

describe.skipIf(!requireOvn('ovsdb session restart'))('ovsdb-server killed and restarted under writes', () => {
  let dir: string | undefined;
  let server: OvsdbServer;

  afterAll(async () => {
    await server?.stop();
    await removeTempDir(dir);
  });

  it('the session reconnects, resyncs, and nothing written before the kill or after the restart is lost', async () => {
    dir = await makeTempDir('ovk');
    server = await startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA });
    const s = await open(server.remote);
    try {
      const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
      let outage: Promise<void> | undefined;
      const outcomes = await inParallel(keys, 6, async (key, i) => {
        if (i === 100) outage = server.kill().then(() => server.restart());
        return guardedSwitch(s, key);
      });
      await outage;
      expect(outcomes.every((o) => o === 'committed' || o === 'replayed-duplicate')).toBe(true);
      expect(s.stats.connects).toBeGreaterThanOrEqual(2);
      expect(s.stats.fullResyncs).toBeGreaterThanOrEqual(2); // standalone servers keep no txn history
      const check = await OvsdbClient.connect(server.remote);
      try {
        const counts = await countByKey(check);
        expect(keys.filter((k) => counts.get(k) !== 1)).toEqual([]);
        expect(counts.size).toBe(keys.length);
        await s.transact([s.ops.comment('barrier')]);
        expect(s.cache.snapshot()).toEqual(await freshSelect(check, s.cache));
      } finally {
        check.close();
      }
    } finally {
      s.close();
    }
  });
});
