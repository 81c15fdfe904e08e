import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../../test/fc.ts';
import { OvsdbCache, applyDiff, type RowChange } from './cache.ts';
import { ManualTimers } from './timers.ts';
import { fromNative, sortAtoms, type NativeAtom } from './wire/datum.ts';
import { parseColumnType, parseSchema } from './wire/schema.ts';
import { LS_SCHEMA } from './testing/ls-schema.ts';
import { OvsdbClientError, OvsdbProtocolError } from './wire/errors.ts';
import type { TableUpdates2 } from './wire/update.ts';

const schema = LS_SCHEMA;
const U1 = '00000000-0000-0000-0000-000000000001';
const U2 = '00000000-0000-0000-0000-000000000002';
const P1 = '10000000-0000-0000-0000-000000000001';
const P2 = '10000000-0000-0000-0000-000000000002';
const t = (n: string) => schema.tables.LS?.columns[n]?.type ?? parseColumnType('string');
const w = (col: string, v: unknown) => fromNative(t(col), v, col, { relaxSize: true });

function makeCache() {
  return new OvsdbCache({
    schema,
    tables: { LS: undefined },
    indexes: { LS: ['name', 'external_ids:vendor', 'ports'] },
  });
}

/**
 * The server's diff (ovsdb_datum_diff): symmetric difference for sets; for maps, pairs only in one side plus changed
 * keys with the new value.
 */
function serverSetDiff(a: readonly string[], b: readonly string[]): string[] {
  return [...a.filter((x) => !b.includes(x)), ...b.filter((x) => !a.includes(x))];
}
function serverMapDiff(a: Record<string, string>, b: Record<string, string>): Record<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(a)) if (!Object.hasOwn(b, k)) out.set(k, v);
  for (const [k, v] of Object.entries(b)) if (!Object.hasOwn(a, k) || a[k] !== v) out.set(k, v);
  return Object.fromEntries(out);
}

describe('update2 diffs', () => {
  it('applying the server diff of old→new to old gives new (sets and maps)', () => {
    const keys = fc.constantFrom('a', 'b', 'c', 'd', 'e', '__proto__', 'constructor');
    const vals = fc.constantFrom('1', '2', '3');
    fc.assert(
      fc.property(
        fc.uniqueArray(keys),
        fc.uniqueArray(keys),
        fc.dictionary(keys, vals),
        fc.dictionary(keys, vals),
        (s1, s2, m1, m2) => {
          const setT = parseColumnType({ key: 'string', min: 0, max: 'unlimited' });
          expect(applyDiff(setT, sortAtoms([...s1]), serverSetDiff(s1, s2))).toEqual(sortAtoms([...s2]));
          const mapT = parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' });
          const got = applyDiff(mapT, Object.fromEntries(Object.entries(m1)), serverMapDiff(m1, m2)) as Record<
            string,
            NativeAtom
          >;
          expect(Object.entries(got).sort()).toEqual(Object.entries(m2).sort());
        },
      ),
      fcParams(300),
    );
  });
});

describe('OvsdbCache', () => {
  const initial: TableUpdates2 = {
    LS: {
      [U1]: {
        kind: 'initial',
        row: { name: 'ls1', ports: w('ports', [P1]), external_ids: w('external_ids', { vendor: 'kovn' }) },
      },
      [U2]: { kind: 'initial', row: { name: 'ls2' } },
    },
  };

  it('fills omitted columns with defaults and freezes rows', () => {
    const c = makeCache();
    c.apply({ kind: 'reply', updates: initial });
    expect(c.get('LS', U2)).toEqual({ _uuid: U2, name: 'ls2', ports: [], external_ids: {}, tag: undefined });
    expect(Object.isFrozen(c.get('LS', U1))).toBe(true);
    expect(Object.isFrozen(c.get('LS', U1)?.ports)).toBe(true);
  });

  it('modify builds a new row object; the old one is unchanged', () => {
    const c = makeCache();
    c.apply({ kind: 'reply', updates: initial });
    const before = c.get('LS', U1);
    c.apply({
      kind: 'update',
      updates: {
        LS: {
          [U1]: {
            kind: 'modify',
            row: { ports: w('ports', [P1, P2]), external_ids: w('external_ids', { vendor: 'kovn', x: 'y' }), tag: 5 },
          },
        },
      },
    });
    const after = c.get('LS', U1);
    expect(after).not.toBe(before);
    expect(before?.ports).toEqual([P1]);
    expect(after?.ports).toEqual([P2]); // P1 was in the diff: removed; P2 added
    expect(after?.external_ids).toEqual({ x: 'y' }); // vendor=kovn again: the same pair removes it
    expect(after?.tag).toBe(5);
  });

  it('keeps indexes in step with inserts, modifies and deletes', () => {
    const c = makeCache();
    c.apply({ kind: 'reply', updates: initial });
    expect(c.lookup('LS', 'external_ids:vendor', 'kovn').map((r) => r._uuid)).toEqual([U1]);
    expect(c.lookup('LS', 'ports', P1).map((r) => r._uuid)).toEqual([U1]);
    c.apply({
      kind: 'update',
      updates: {
        LS: {
          [U1]: { kind: 'modify', row: { name: 'renamed', external_ids: w('external_ids', { vendor: 'other' }) } },
        },
      },
    });
    expect(c.lookup('LS', 'name', 'ls1')).toEqual([]);
    expect(c.lookup('LS', 'name', 'renamed').map((r) => r._uuid)).toEqual([U1]);
    expect(c.lookup('LS', 'external_ids:vendor', 'other').map((r) => r._uuid)).toEqual([U1]);
    expect(c.lookup('LS', 'external_ids:vendor', 'kovn')).toEqual([]);
    c.apply({ kind: 'update', updates: { LS: { [U1]: { kind: 'delete' } } } });
    expect(c.lookup('LS', 'name', 'renamed')).toEqual([]);
    expect(c.lookup('LS', 'tag', 5)).toEqual([]); // unindexed: scans
  });

  it('a full resync removes rows the server no longer has and keeps unchanged rows by identity', () => {
    const c = makeCache();
    c.apply({ kind: 'reply', updates: initial });
    const ls2 = c.get('LS', U2);
    const batches: RowChange[][] = [];
    c.onChange((ch) => batches.push([...ch]));
    c.apply({
      kind: 'reply',
      found: false,
      lastTxnId: U1,
      updates: { LS: { [U2]: { kind: 'initial', row: { name: 'ls2' } } } },
    });
    expect([...c.table('LS').keys()]).toEqual([U2]);
    expect(c.get('LS', U2)).toBe(ls2);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((ch) => [ch.uuid, ch.new === undefined])).toEqual([[U1, true]]);
    expect(c.lastTxnId).toBe(U1);
    // found: true → incremental, nothing replaced
    c.apply({ kind: 'reply', found: true, lastTxnId: U2, updates: {} });
    expect(c.get('LS', U2)).toBe(ls2);
  });

  it('a modify for a row the cache lacks is a protocol error (cache out of sync)', () => {
    const c = makeCache();
    expect(() =>
      c.apply({ kind: 'update', updates: { LS: { [U1]: { kind: 'modify', row: { name: 'x' } } } } }),
    ).toThrow(OvsdbProtocolError);
  });

  it('listener exceptions do not escape into the connection', () => {
    const errors: unknown[] = [];
    const c = new OvsdbCache({ schema, tables: { LS: undefined }, onListenerError: (e) => errors.push(e) });
    c.onChange(() => {
      throw new Error('boom');
    });
    expect(() => c.apply({ kind: 'reply', updates: initial })).not.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('waitFor resolves on the change that satisfies it, or times out with cache-timeout', async () => {
    const timers = new ManualTimers();
    const c = makeCache();
    const seen = c.waitFor(() => c.has('LS', U1), { timeoutMs: 1000, timers });
    c.apply({ kind: 'reply', updates: initial });
    await expect(seen).resolves.toBeUndefined();
    const never = c.waitFor(() => c.has('LS', P1), { timeoutMs: 1000, timers, what: 'row P1' });
    timers.advance(1000);
    const err = await never.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbClientError);
    expect((err as OvsdbClientError).code).toBe('cache-timeout');
  });

  it('monitor requests name the cached columns', () => {
    const c = new OvsdbCache({ schema, tables: { LS: ['name', 'external_ids'] } });
    expect(c.monitorRequests()).toEqual({ LS: [{ columns: ['name', 'external_ids'] }] });
  });
});

describe('column names that are members of Object.prototype (ported from the wire helper branch)', () => {
  it('a cache table with a column named "constructor" gives a row that omits it the default, not a function', () => {
    const schema = parseSchema({
      name: 'D',
      tables: { T: { columns: { constructor: { type: 'string' }, a: { type: 'integer' } } } },
    });
    const cache = new OvsdbCache({ schema, tables: { T: undefined } });
    const u = '11111111-1111-1111-1111-111111111111';
    cache.apply({ kind: 'update', json: JSON.parse(`{"T":{"${u}":{"insert":{"a":1}}}}`), path: 'update' } as never);
    expect(cache.get('T', u)).toEqual({ _uuid: u, constructor: '', a: 1 });
    cache.applyUpdates({ T: { [u]: { kind: 'modify', row: { a: 2 } } } });
    expect(cache.get('T', u)).toEqual({ _uuid: u, constructor: '', a: 2 });
    const u2 = '22222222-2222-2222-2222-222222222222';
    cache.applyUpdates({ T: { [u2]: { kind: 'insert', row: { a: 3 } } } });
    expect(cache.get('T', u2)).toEqual({ _uuid: u2, constructor: '', a: 3 });
  });
});
