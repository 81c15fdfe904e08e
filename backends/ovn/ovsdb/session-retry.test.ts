/**
 * The session's retry policy, against a scripted server that "commits" a
 * transaction and drops the connection before replying.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOvsdbServer } from './testing/fake-server.ts';
import { OvsdbSession, isReplayedDuplicate } from './session.ts';
import {
  OvsdbConnectionClosedError,
  OvsdbDeadlineError,
  OvsdbProtocolError,
  OvsdbTimedOutError,
} from './wire/errors.ts';

const SCHEMA = {
  name: 'T',
  version: '1.0.0',
  tables: {
    Thing: {
      columns: {
        name: { type: 'string' },
        external_ids: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
      },
      isRoot: true,
    },
  },
};
const UUID = '22222222-2222-2222-2222-222222222222';

describe('OvsdbSession retry policy (scripted server)', () => {
  let dir: string;
  let server: FakeOvsdbServer;
  let session: OvsdbSession | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kovn-fake-'));
    server = new FakeOvsdbServer(join(dir, 'db.sock'), SCHEMA);
    await server.listen();
  });
  afterEach(async () => {
    session?.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = () =>
    OvsdbSession.open({
      remotes: `unix:${server.path}`,
      db: 'T',
      tables: { Thing: undefined },
      backoff: { initialMs: 10, maxMs: 50 },
      probeIntervalMs: 0,
      readYourWritesTimeoutMs: 200,
    });

  it('a guarded insert whose connection broke is replayed; its guard failing on replay is recognised', async () => {
    session = await open();
    server.onTransact = (_params, id, conn) => {
      if (server.transacts.length === 1)
        conn.destroy(); // "committed", reply lost
      else conn.reply(id, [{ error: 'timed out', details: '"where" clause test failed' }]);
    };
    const err = await session
      .transact(
        session.ops.guardedInsert(
          'Thing',
          { name: 'a', external_ids: { 'kovn-key': 'a' } },
          { unique: ['external_ids:kovn-key'] },
        ),
      )
      .catch((e: unknown) => e);
    expect(server.transacts).toHaveLength(2);
    expect(server.transacts[1]).toEqual(server.transacts[0]);
    expect(err).toBeInstanceOf(OvsdbTimedOutError);
    expect((err as OvsdbTimedOutError).replayed).toBe(true);
    expect((err as OvsdbTimedOutError).opIndex).toBe(0);
    expect(isReplayedDuplicate(err)).toBe(true);
    expect(session.stats.replays).toBe(1);
    expect(server.connections).toBe(2);
  });

  it('a replayed transaction that succeeds resolves normally', async () => {
    session = await open();
    let withUpdate = true;
    server.onTransact = (_params, id, conn) => {
      if (server.transacts.length % 2 === 1) return conn.destroy();
      // as ovsdb-server: update before reply
      if (withUpdate) conn.update3({ Thing: { [UUID]: { insert: { name: 'b' } } } });
      conn.reply(id, [{}, { uuid: ['uuid', UUID] }]);
    };
    const ops = session.ops.guardedInsert(
      'Thing',
      { name: 'b', external_ids: { 'kovn-key': 'b' } },
      { unique: ['name'] },
    );
    const [, ins] = await session.transact(ops);
    expect(ins.uuid).toBe(UUID);
    expect(session.cache.get('Thing', UUID)?.name).toBe('b');
    expect(server.transacts).toHaveLength(2);
    // A server that replies without ever sending the update breaks read-your-writes: that is reported, not hidden.
    withUpdate = false;
    const err = await session
      .transact(session.ops.guardedInsert('Thing', { name: 'c', external_ids: {} }, { unique: ['name'] }))
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('cache-timeout');
  });

  it('an unguarded insert whose connection broke is not replayed: it fails with maybeCommitted', async () => {
    session = await open();
    server.onTransact = (_params, id, conn) => {
      if (server.transacts.length === 1) conn.destroy();
      else conn.reply(id, [{}]);
    };
    const err = await session.transact([session.ops.insert('Thing', { name: 'c' })]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbConnectionClosedError);
    expect((err as OvsdbConnectionClosedError).maybeCommitted).toBe(true);
    expect((err as Error).message).toMatch(/not replayed: insert into Thing/);
    await session.transact([session.ops.comment('next')]); // the session reconnected and goes on
    expect(server.transacts).toHaveLength(2);
    expect(server.transacts[1]).toEqual(['T', { op: 'comment', comment: 'next' }]);
  });

  it("retry: 'never' fails even a safe transaction", async () => {
    session = await open();
    server.onTransact = (_params, _id, conn) => conn.destroy();
    const err = await session.transact([session.ops.comment('x')], { retry: 'never' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbConnectionClosedError);
    expect(server.transacts).toHaveLength(1);
  });

  it('transactions submitted while no server answers are queued and sent after reconnecting, in order', async () => {
    session = await open();
    await server.close();
    const p1 = session.transact([session.ops.comment('1')]);
    const p2 = session.transact([session.ops.comment('2')]);
    await new Promise((r) => setTimeout(r, 100)); // a few failed reconnect passes
    expect(session.state).toBe('connecting');
    await server.listen();
    await Promise.all([p1, p2]);
    expect(server.transacts.map((t) => (t[1] as { comment: string }).comment)).toEqual(['1', '2']);
  });

  it('a malformed transact reply is a typed error, not a hang', async () => {
    session = await open();
    server.onTransact = (_params, id, conn) => conn.reply(id, 42);
    const connects = session.stats.connects;
    const err = await session.transact([session.ops.comment('x')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbProtocolError);
    // Deliberately: the connection that said something unreadable is closed, the session resyncs on a new one, and
    // the transaction is reported as possibly committed instead of replayed.
    expect(err).toMatchObject({ maybeCommitted: true });
    server.onTransact = (_params, id, conn) => conn.reply(id, [{}]);
    await session.transact([session.ops.comment('ok')]);
    expect(session.stats.connects).toBe(connects + 1);
    server.onTransact = (_params, _id, conn) => conn.sendRaw('{"id": ]');
    await expect(session.transact([session.ops.comment('y')])).rejects.toBeInstanceOf(OvsdbProtocolError);
  });

  it('a deeply nested reply (issue 8, defect 3) rejects with the typed protocol error, closes, and the session resyncs', async () => {
    session = await open();
    const connectsBefore = session.stats.connects;
    const deep = `${'['.repeat(4112)}${']'.repeat(4112)}`;
    server.onTransact = (_params, id, conn) =>
      conn.sendRaw(`{"id":${JSON.stringify(id)},"result":[{"uuid":${deep}}],"error":null}`);
    const err = await session.transact([session.ops.comment('deep')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbProtocolError);
    expect(err).toMatchObject({ maybeCommitted: true });
    expect((err as Error).message).toMatch(/nested deeper than 64 levels/);
    // The session gave up that connection and synced again; the next transaction goes through.
    server.onTransact = (_params, id, conn) => conn.reply(id, [{}]);
    await session.transact([session.ops.comment('after')]);
    expect(session.stats.connects).toBeGreaterThan(connectsBefore);
  });

  it('a deadline: before sending, the transaction is dropped; after sending, the error says it may have committed', async () => {
    session = await open();
    const gone = new AbortController();
    gone.abort(new Error('too late'));
    const before = await session
      .transact([session.ops.comment('never')], { signal: gone.signal })
      .catch((e: unknown) => e);
    expect(before).toBeInstanceOf(OvsdbDeadlineError);
    expect(before).toMatchObject({ maybeCommitted: false });
    // The server takes the transaction and does not answer until told to.
    let answer: (() => void) | undefined;
    server.onTransact = (_params, id, conn) => {
      answer = () => conn.reply(id, [{}]);
    };
    const deadline = new AbortController();
    const sent = session.transact([session.ops.comment('slow')], { signal: deadline.signal }).catch((e: unknown) => e);
    while (server.transacts.length === 0) await new Promise((r) => setTimeout(r, 5));
    deadline.abort();
    const after = await sent;
    expect(after).toBeInstanceOf(OvsdbDeadlineError);
    expect(after).toMatchObject({ maybeCommitted: true });
    expect(server.transacts.map((t) => (t[1] as { comment: string }).comment)).toEqual(['slow']);
    // The late reply changes nothing for the caller, and the session goes on.
    answer?.();
    server.onTransact = (_params, id, conn) => conn.reply(id, [{}]);
    await session.transact([session.ops.comment('next')]);
  });

  it('open gives up with a typed error when no server answers', async () => {
    await server.close();
    const err = await OvsdbSession.open({
      remotes: `unix:${server.path}`,
      db: 'T',
      tables: {},
      backoff: { initialMs: 10, maxMs: 20 },
      openTimeoutMs: 200,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbConnectionClosedError);
    expect((err as Error).message).toMatch(/no usable server/);
  });
});
