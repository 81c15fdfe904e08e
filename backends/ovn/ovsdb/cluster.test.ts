/**
 * Against a real 3-member raft cluster of the NB database: leader selection
 * through _Server, monitor_cond_since resume, and killing the leader under
 * a stream of writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn, startCluster, type OvsdbCluster } from '../control-plane/index.ts';
import { OvsdbClient, type MonitorEvent } from './client.ts';
import { OpBuilder } from './build.ts';
import { OvsdbSession } from './session.ts';
import { suitability } from './cluster.ts';
import { ZERO_TXN_ID } from './wire/monitor.ts';
import type { nb } from './schema/index.ts';
import { countByKey, freshSelect, guardedSwitch, inParallel } from './testing/nb-helpers.ts';

const DB = 'OVN_Northbound';

describe('suitability', () => {
  const base = { name: DB, index: 1 };
  it('takes standalone and relay servers, and only the connected leader of a cluster', () => {
    expect(
      suitability({ ...base, model: 'standalone', connected: true, leader: true }, { db: DB, leaderOnly: true }).ok,
    ).toBe(true);
    expect(
      suitability({ ...base, model: 'relay', connected: true, leader: false }, { db: DB, leaderOnly: true }).ok,
    ).toBe(true);
    expect(
      suitability({ ...base, model: 'clustered', connected: true, leader: true }, { db: DB, leaderOnly: true }).ok,
    ).toBe(true);
    expect(
      suitability({ ...base, model: 'clustered', connected: true, leader: false }, { db: DB, leaderOnly: true }),
    ).toEqual({ ok: false, reason: `not the leader of ${DB}` });
    expect(
      suitability({ ...base, model: 'clustered', connected: true, leader: false }, { db: DB, leaderOnly: false }).ok,
    ).toBe(true);
    expect(
      suitability({ ...base, model: 'clustered', connected: false, leader: false }, { db: DB, leaderOnly: false }).ok,
    ).toBe(false);
    expect(suitability(undefined, { db: DB, leaderOnly: false }).ok).toBe(false);
  });
});

describe.skipIf(!requireOvn('ovsdb cluster'))('against a 3-member NB raft cluster', () => {
  let cluster: OvsdbCluster;
  const remoteOf = (i: number): string => cluster.members[i]?.tcpRemote ?? '';

  beforeAll(async () => {
    cluster = await startCluster({ members: 3 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('monitor_cond_since: a new connection resumes from the last txn id with only the changes since', async () => {
    const leader = await cluster.leader();
    const first = await OvsdbClient.connect(remoteOf(leader));
    const b = new OpBuilder<nb.Tables>(await first.getSchema(DB));
    await first.transact(DB, [b.insert('Logical_Switch', { name: 'before' })]);
    const reply = await first.monitorCondSince(
      DB,
      'm',
      { Logical_Switch: [{ columns: ['name'] }] },
      undefined,
      () => {},
    );
    expect(reply.found).toBe(false); // from scratch: a full dump
    expect(reply.lastTxnId).not.toBe(ZERO_TXN_ID);
    expect(Object.values(reply.updates.Logical_Switch ?? {}).map((u) => u.kind)).toEqual(['initial']);
    first.close();
    // Written while nobody watched, through another member (forwarded to the leader).
    const writer = await OvsdbClient.connect(remoteOf((leader + 1) % 3));
    const [ins] = await writer.transact(DB, [b.insert('Logical_Switch', { name: 'while-away' })]);
    writer.close();
    const again = await OvsdbClient.connect(remoteOf(leader));
    try {
      const events: MonitorEvent[] = [];
      const resumed = await again.monitorCondSince(
        DB,
        'm',
        { Logical_Switch: [{ columns: ['name'] }] },
        reply.lastTxnId,
        (e) => events.push(e),
      );
      expect(resumed.found).toBe(true);
      expect(resumed.updates).toEqual({
        Logical_Switch: { [ins.uuid]: { kind: 'insert', row: { name: 'while-away' } } },
      });
      expect(resumed.lastTxnId).not.toBe(reply.lastTxnId);
      expect(events).toHaveLength(1);
    } finally {
      again.close();
    }
  });

  it('a session uses the leader, and resumes with monitor_cond_since after a reconnect', async () => {
    const s = await OvsdbSession.open<nb.Tables>({
      remotes: cluster.remotes,
      db: DB,
      tables: { Logical_Switch: ['name', 'external_ids'] },
      backoff: { initialMs: 50, maxMs: 400 },
    });
    try {
      expect(s.currentRemote).toBe(remoteOf(await cluster.leader()));
      expect(s.stats).toMatchObject({ connects: 1, fullResyncs: 1, resumed: 0 });
      s.reconnect();
      await s.transact([s.ops.insert('Logical_Switch', { name: 'after-reconnect' })]);
      expect(s.stats).toMatchObject({ connects: 2, fullResyncs: 1, resumed: 1 });
      expect(s.cache.lookup('Logical_Switch', 'name', 'after-reconnect')).toHaveLength(1);
    } finally {
      s.close();
    }
  });

  it('kill the leader during writes: writes resume on the new leader; every intended row exists exactly once', async () => {
    const s = await OvsdbSession.open<nb.Tables>({
      remotes: cluster.remotes,
      db: DB,
      tables: { Logical_Switch: ['name', 'external_ids'] },
      indexes: { Logical_Switch: ['external_ids:kovn-key'] },
      backoff: { initialMs: 50, maxMs: 400 },
      probeIntervalMs: 1000,
    });
    try {
      const oldLeader = await cluster.leader();
      expect(s.currentRemote).toBe(remoteOf(oldLeader));
      const keys = Array.from({ length: 300 }, (_, i) => `c${i}`);
      let kill: Promise<void> | undefined;
      const outcomes = await inParallel(keys, 6, async (key, i) => {
        if (i === 100) kill = cluster.kill(oldLeader);
        return guardedSwitch(s, key);
      });
      await kill;
      expect(outcomes.filter((o) => o !== 'committed' && o !== 'replayed-duplicate')).toEqual([]);
      const newLeader = await cluster.leader();
      expect(newLeader).not.toBe(oldLeader);
      expect(s.currentRemote).toBe(remoteOf(newLeader));
      expect(s.stats.connects).toBeGreaterThanOrEqual(2);
      expect(s.stats.resumed).toBeGreaterThanOrEqual(1); // the new leader still had our txn id
      const check = await OvsdbClient.connect(remoteOf(newLeader));
      try {
        const counts = await countByKey(check);
        expect(keys.filter((k) => counts.get(k) !== 1)).toEqual([]);
        await s.transact([s.ops.comment('barrier')]);
        expect(s.cache.snapshot()).toEqual(await freshSelect(check, s.cache));
        for (const k of keys) expect(s.cache.lookup('Logical_Switch', 'external_ids:kovn-key', k)).toHaveLength(1);
      } finally {
        check.close();
      }
    } finally {
      s.close();
    }
  });
});
