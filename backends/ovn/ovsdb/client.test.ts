/**
 * OvsdbClient against a real ovsdb-server (OVN NB schema) over a unix socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTempDir,
  requireOvn,
  runTool,
  startOvsdbServer,
  NB_SCHEMA,
  type OvsdbServer,
} from '../control-plane/index.ts';
import { OvsdbClient, type LockEvent, type MonitorEvent } from './client.ts';
import { OpBuilder } from './build.ts';
import { OvsdbCache } from './cache.ts';
import type { nb } from './schema/index.ts';
import {
  OvsdbAbortedError,
  OvsdbConstraintViolationError,
  OvsdbDuplicateUuidNameError,
  OvsdbNotOwnerError,
  OvsdbReferentialIntegrityError,
  OvsdbServerError,
  OvsdbSyntaxError,
  OvsdbTimedOutError,
  OvsdbUnknownColumnError,
  OvsdbUnknownDatabaseError,
  OvsdbUnknownTableError,
} from './wire/errors.ts';
import { OvsNamedUuid, OvsUuid } from './wire/atom.ts';
import { OvsMap } from './wire/datum.ts';
import type { Operation } from './wire/operation.ts';
import { removeTempDir } from './testing/nb-helpers.ts';

const DB = 'OVN_Northbound';

async function caught(p: Promise<unknown>): Promise<OvsdbServerError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof OvsdbServerError)) throw new Error(`expected an OvsdbServerError, got ${String(e)}`);
  return e;
}

describe.skipIf(!requireOvn('ovsdb client'))('OvsdbClient against ovsdb-server (NB)', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let client: OvsdbClient;
  let b: OpBuilder<nb.Tables>;

  beforeAll(async () => {
    dir = await makeTempDir('ovc');
    server = await startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA });
    client = await OvsdbClient.connect(server.remote);
    b = new OpBuilder<nb.Tables>(await client.getSchema(DB));
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await removeTempDir(dir);
  });

  it('list_dbs, get_schema, get_server_id, set_db_change_aware, echo', async () => {
    expect(await client.listDbs()).toEqual(expect.arrayContaining([DB, '_Server']));
    const schema = await client.getSchema(DB);
    expect(schema.name).toBe(DB);
    expect(schema.tables.Logical_Switch?.columns.ports?.type.key.refTable).toBe('Logical_Switch_Port');
    expect(await client.getServerId()).toMatch(/^[0-9a-f-]{36}$/);
    await expect(client.setDbChangeAware(true)).resolves.toBeUndefined();
    expect(await client.echo(['ping'])).toEqual(['ping']);
  });

  it('transact: insert with uuid-name, select, update, mutate, wait, comment, commit, delete', async () => {
    const ext = { vendor: 'kovn', 'kovn-key': 't1' };
    const [ls, lsp, , , ,] = await client.transact(DB, [
      b.insert('Logical_Switch', { name: 't1', ports: ['p1'], external_ids: ext }, { uuidName: 'ls' }),
      b.insert('Logical_Switch_Port', { name: 't1-p1', addresses: ['00:00:00:00:00:01 10.0.0.2'] }, { uuidName: 'p1' }),
      b.comment('kovn: create t1'),
      b.wait('Logical_Switch_Port', [['name', '==', 't1-p1']], {
        until: '==',
        rows: [{ name: 't1-p1' }],
        columns: ['name'],
        timeout: 0,
      }),
      b.commit(false),
      b.select('Logical_Switch', [['_uuid', '==', 'ls']], ['name', 'ports']),
    ]);
    expect(ls.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const [sel] = await client.transact(DB, [
      b.select('Logical_Switch', [['external_ids', 'includes', { 'kovn-key': 't1' }]]),
    ]);
    expect(sel.rows).toHaveLength(1);
    expect(sel.rows[0]?.ports).toEqual(new OvsUuid(lsp.uuid));
    const [upd, mut] = await client.transact(DB, [
      b.update('Logical_Switch', [b.whereUuid(ls.uuid)], { other_config: { mcast_snoop: 'true' } }),
      b.mutate(
        'Logical_Switch',
        [b.whereUuid(ls.uuid)],
        [
          ['external_ids', 'insert', { extra: 'x' }],
          ['external_ids', 'delete', ['kovn-key']],
        ],
      ),
    ]);
    expect([upd.count, mut.count]).toEqual([1, 1]);
    const [after] = await client.transact(DB, [
      b.select('Logical_Switch', [b.whereUuid(ls.uuid)], ['other_config', 'external_ids']),
    ]);
    expect(after.rows[0]?.external_ids).toEqual(
      new OvsMap([
        ['extra', 'x'],
        ['vendor', 'kovn'],
      ]),
    );
    expect(after.rows[0]?.other_config).toEqual(new OvsMap([['mcast_snoop', 'true']]));
    const [del] = await client.transact(DB, [b.delete('Logical_Switch', [b.whereUuid(ls.uuid)])]);
    expect(del.count).toBe(1);
    // The port, no longer referenced, was garbage-collected by the server.
    const [gone] = await client.transact(DB, [b.select('Logical_Switch_Port', [['name', '==', 't1-p1']])]);
    expect(gone.rows).toEqual([]);
  });

  it('abort and assert fail with typed errors naming the operation', async () => {
    const ab = await caught(client.transact(DB, [b.insert('Logical_Switch', { name: 'never' }), b.abort()]));
    expect(ab).toBeInstanceOf(OvsdbAbortedError);
    expect(ab.opIndex).toBe(1);
    const [sel] = await client.transact(DB, [b.select('Logical_Switch', [['name', '==', 'never']])]);
    expect(sel.rows).toEqual([]);
    const no = await caught(client.transact(DB, [b.assert('some_lock')]));
    expect(no).toBeInstanceOf(OvsdbNotOwnerError);
    expect(no.opIndex).toBe(0);
  });

  it('server errors come back typed, naming table and operation', async () => {
    const lsp = (name: string, uuidName: string): Operation => b.insert('Logical_Switch_Port', { name }, { uuidName });
    const dup = await caught(
      client.transact(DB, [
        b.insert('Logical_Switch', { name: 'dup', ports: ['a', 'b'] }),
        lsp('dup-port', 'a'),
        lsp('dup-port', 'b'),
      ]),
    );
    expect(dup).toBeInstanceOf(OvsdbConstraintViolationError);
    expect(dup.table).toBe('Logical_Switch_Port');
    expect(dup.opIndex).toBeUndefined(); // a commit-time check
    const badEnum = await caught(
      client.transact(DB, [
        b.comment('x'),
        { op: 'insert', table: 'ACL', row: { action: 'foo', direction: 'to-lport', match: '1', priority: 1 } },
      ]),
    );
    expect(badEnum).toBeInstanceOf(OvsdbConstraintViolationError);
    expect([badEnum.opIndex, badEnum.table]).toEqual([1, 'ACL']);
    const ref = await caught(
      client.transact(DB, [
        b.insert('Logical_Switch', { name: 'ref', ports: ['0b8e7f4c-1111-2222-3333-444455556666'] }),
      ]),
    );
    expect(ref).toBeInstanceOf(OvsdbReferentialIntegrityError);
    expect(ref.table).toBe('Logical_Switch');
    const col = await caught(
      client.transact(DB, [{ op: 'insert', table: 'Logical_Switch', row: { name: 'x', nosuch: 1 } }]),
    );
    expect(col).toBeInstanceOf(OvsdbUnknownColumnError);
    expect([col.opIndex, col.table, col.message]).toEqual([0, 'Logical_Switch', expect.stringContaining('nosuch')]);
    const tab = await caught(client.transact(DB, [b.comment('x'), { op: 'select', table: 'NoSuchTable', where: [] }]));
    expect(tab).toBeInstanceOf(OvsdbUnknownTableError);
    expect(tab).toBeInstanceOf(OvsdbSyntaxError);
    expect([tab.opIndex, tab.table]).toEqual([1, 'NoSuchTable']);
    const named = await caught(
      client.transact(DB, [
        b.insert('Logical_Switch', { name: 'n' }, { uuidName: 'x' }),
        b.insert('Logical_Switch', { name: 'n' }, { uuidName: 'x' }),
      ]),
    );
    expect(named).toBeInstanceOf(OvsdbDuplicateUuidNameError);
    expect(named.opIndex).toBe(1);
    const wait = await caught(
      client.transact(DB, [b.wait('NB_Global', [], { until: '!=', rows: [], columns: ['_uuid'], timeout: 0 })]),
    );
    expect(wait).toBeInstanceOf(OvsdbTimedOutError);
    await expect(client.transact('Nope', [b.comment('x')])).rejects.toBeInstanceOf(OvsdbUnknownDatabaseError);
  });

  it('monitor_cond: initial contents, then update2 for another client (ovn-nbctl), with set/map diffs applied', async () => {
    const schema = await client.getSchema(DB);
    const cache = new OvsdbCache<nb.Tables>({
      schema,
      tables: {
        Logical_Switch: ['name', 'ports', 'external_ids', 'other_config'],
        Logical_Switch_Port: ['name', 'addresses'],
      },
      indexes: { Logical_Switch: ['name'] },
    });
    const events: MonitorEvent[] = [];
    const watcher = await OvsdbClient.connect(server.remote);
    try {
      await watcher.monitorCond(DB, 'm1', cache.monitorRequests(), (e) => {
        events.push(e);
        cache.apply(e);
      });
      expect(events[0]?.kind).toBe('reply');
      const nbctl = (...args: string[]) => runTool('ovn-nbctl', [`--db=${server.remote}`, ...args]);
      await nbctl(
        'ls-add',
        'mon1',
        '--',
        'set',
        'Logical_Switch',
        'mon1',
        'external_ids:vendor=other',
        'other_config:a=1',
      );
      await nbctl('lsp-add', 'mon1', 'mon1-p1', '--', 'lsp-set-addresses', 'mon1-p1', '00:00:00:00:00:0a 10.0.0.10');
      await nbctl('lsp-add', 'mon1', 'mon1-p2');
      await nbctl(
        'set',
        'Logical_Switch',
        'mon1',
        'other_config:a=2',
        'other_config:b=3',
        '--',
        'remove',
        'Logical_Switch',
        'mon1',
        'external_ids',
        'vendor',
      );
      await nbctl('lsp-del', 'mon1-p1');
      // ovn-nbctl returns after its transaction committed; the update may still be in flight to us.
      await cache.waitFor(
        () =>
          cache.lookup('Logical_Switch', 'name', 'mon1')[0]?.other_config.b === '3' &&
          cache.table('Logical_Switch_Port').size === 1,
        { timeoutMs: 10_000 },
      );
      const ls = cache.lookup('Logical_Switch', 'name', 'mon1')[0];
      expect(ls?.other_config).toEqual({ a: '2', b: '3' });
      expect(ls?.external_ids).toEqual({});
      expect(ls?.ports.map((u) => cache.get('Logical_Switch_Port', u)?.name)).toEqual(['mon1-p2']);
      expect(events.filter((e) => e.kind === 'update').length).toBeGreaterThanOrEqual(5);
      // What the cache holds equals what a fresh select returns.
      const [sel] = await client.transact(DB, [
        b.select(
          'Logical_Switch',
          [['name', '==', 'mon1']],
          ['_uuid', 'name', 'ports', 'external_ids', 'other_config'],
        ),
      ]);
      const row = sel.rows[0];
      const uuid = (row!._uuid as OvsUuid).uuid;
      const { _uuid: _, ...cols } = row ?? {};
      expect(cache.rowFromWire('Logical_Switch', uuid, cols)).toEqual(ls);
      await watcher.monitorCancel('m1');
      await nbctl('ls-add', 'mon2');
      await client.echo(); // a round trip after the write: no update2 for a cancelled monitor arrives
      expect(cache.lookup('Logical_Switch', 'name', 'mon2')).toEqual([]);
    } finally {
      watcher.close();
    }
  });

  it('lock, steal and unlock, with locked/stolen notifications', async () => {
    const a = await OvsdbClient.connect(server.remote);
    const c = await OvsdbClient.connect(server.remote);
    const seenA: LockEvent[] = [];
    const seenC: LockEvent[] = [];
    a.onLockEvent((e) => seenA.push(e));
    c.onLockEvent((e) => seenC.push(e));
    try {
      expect(await a.lock('kovn_leader')).toBe(true);
      await expect(a.transact(DB, [b.assert('kovn_leader')])).resolves.toEqual([{}]);
      expect(await c.lock('kovn_leader')).toBe(false); // queued
      await a.unlock('kovn_leader');
      await c.echo();
      expect(seenC).toEqual([{ kind: 'locked', lockId: 'kovn_leader' }]);
      expect(await a.lock('kovn_leader')).toBe(false); // queued behind c
      await a.unlock('kovn_leader'); // the server wants the queued request withdrawn before a steal
      await a.steal('kovn_leader');
      await c.echo();
      expect(seenC.at(-1)).toEqual({ kind: 'stolen', lockId: 'kovn_leader' });
      await expect(c.transact(DB, [b.assert('kovn_leader')])).rejects.toBeInstanceOf(OvsdbNotOwnerError);
      await expect(a.transact(DB, [b.assert('kovn_leader')])).resolves.toEqual([{}]);
      expect(seenA).toEqual([]);
    } finally {
      a.close();
      c.close();
    }
  });

  it('named-uuid references are resolved by the server (builder: non-uuid strings in uuid columns)', () => {
    const op = b.insert('Logical_Switch', { name: 'x', ports: ['p1', '0b8e7f4c-1111-2222-3333-444455556666'] });
    expect(op.op === 'insert' && op.row.ports).toEqual(
      expect.objectContaining({ items: [new OvsNamedUuid('p1'), new OvsUuid('0b8e7f4c-1111-2222-3333-444455556666')] }),
    );
  });
});
