import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fcParams } from '../../../test/fc.ts';
import { OvsdbCache, type RowChange } from './cache.ts';
import { OvsdbClient, type MonitorEvent } from './client.ts';
import { RpcConnection } from './rpc.ts';
import { FakeStream, flush } from './testing/fake-stream.ts';
import { emitValue, fromNative } from './wire/datum.ts';
import { OvsdbProtocolError } from './wire/errors.ts';
import { parseColumnType } from './wire/schema.ts';
import { LS_SCHEMA } from './testing/ls-schema.ts';
import { parseTableUpdates2 } from './wire/update.ts';

const schema = LS_SCHEMA;
const wire = (c: string, v: unknown) =>
  emitValue(fromNative(schema.tables.LS?.columns[c]?.type ?? parseColumnType('string'), v, c, { relaxSize: true }));

type State = Map<
  string,
  { name: string; ports: string[]; external_ids: Record<string, string>; tag: number | undefined }
>;

const UUIDS = [
  '00000000-0000-0000-0000-00000000000a',
  '00000000-0000-0000-0000-00000000000b',
  '00000000-0000-0000-0000-00000000000c',
];
const rowArb = fc.record({
  name: fc.constantFrom('', 'a', 'b'),
  ports: fc.uniqueArray(fc.constantFrom(...UUIDS.map((u) => u.replace('0000000000', '1111111111'))), { maxLength: 3 }),
  external_ids: fc.dictionary(fc.constantFrom('vendor', 'k', '__proto__'), fc.constantFrom('1', '2'), { maxKeys: 3 }),
  tag: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
});
const stateArb: fc.Arbitrary<State> = fc
  .array(fc.option(rowArb, { nil: undefined }), { minLength: 3, maxLength: 3 })
  .map((rows) => new Map(rows.flatMap((r, i) => (r === undefined ? [] : [[UUIDS[i] as string, r] as const]))));

/** The `<table-updates2>` JSON a server sends to take a monitor from `a` to `b` (update2 diffs, defaults omitted). */
function diff(a: State, b: State, initial: boolean): Record<string, unknown> {
  const rows: Record<string, unknown> = {};
  for (const [u, r] of b) {
    const old = a.get(u);
    if (old === undefined || initial) {
      const row: Record<string, unknown> = {};
      if (r.name !== '') row.name = r.name;
      if (r.ports.length > 0) row.ports = wire('ports', r.ports);
      if (Object.keys(r.external_ids).length > 0) row.external_ids = wire('external_ids', r.external_ids);
      if (r.tag !== undefined) row.tag = wire('tag', r.tag);
      rows[u] = { [initial ? 'initial' : 'insert']: row };
      continue;
    }
    const m: Record<string, unknown> = {};
    if (old.name !== r.name) m.name = r.name;
    const sym = [...old.ports.filter((p) => !r.ports.includes(p)), ...r.ports.filter((p) => !old.ports.includes(p))];
    if (sym.length > 0) m.ports = wire('ports', sym);
    const md: [string, string][] = [];
    for (const [k, v] of Object.entries(old.external_ids)) if (!Object.hasOwn(r.external_ids, k)) md.push([k, v]);
    for (const [k, v] of Object.entries(r.external_ids))
      if (old.external_ids[k] !== v || !Object.hasOwn(old.external_ids, k)) md.push([k, v]);
    if (md.length > 0) m.external_ids = ['map', md];
    if (old.tag !== r.tag) m.tag = wire('tag', r.tag);
    if (Object.keys(m).length > 0) rows[u] = { modify: m };
  }
  if (!initial) for (const u of a.keys()) if (!b.has(u)) rows[u] = { delete: null };
  return JSON.parse(JSON.stringify({ LS: rows }));
}

const makeCache = () =>
  new OvsdbCache({ schema, tables: { LS: undefined }, indexes: { LS: ['name', 'external_ids:vendor'] } });

function feed(cache: OvsdbCache, events: MonitorEvent[]): RowChange[][] {
  const seen: RowChange[][] = [];
  cache.onChange((c) => seen.push([...c]));
  for (const e of events) cache.apply(e);
  return seen;
}

describe('cache rows from JSON as received', () => {
  it('equal the rows from parsed updates, change for change, and the server state', () => {
    fc.assert(
      fc.property(fc.array(stateArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (states, resync) => {
        const messages = states.map((s, i) => ({
          json: diff(i === 0 ? new Map() : (states[i - 1] as State), s, i === 0),
          first: i === 0,
        }));
        // a full dump again
        if (resync) messages.push({ json: diff(new Map(), states[states.length - 1] as State, true), first: true });
        const asJson = makeCache();
        const asParsed = makeCache();
        const kind = (first: boolean) => (first ? 'reply' : 'update') as 'reply';
        const a = feed(
          asJson,
          messages.map((m) => ({ kind: kind(m.first), json: m.json, updates: parseTableUpdates2(m.json) })),
        );
        const b = feed(
          asParsed,
          messages.map((m) => ({ kind: kind(m.first), updates: parseTableUpdates2(m.json) })),
        );
        expect(a).toEqual(b);
        expect(asJson.snapshot()).toEqual(asParsed.snapshot());
        const last = states[states.length - 1] as State;
        expect(asJson.snapshot().LS).toEqual(
          [...last]
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([u, r]) => ({ _uuid: u, ...r, ports: [...r.ports].sort() })),
        );
        for (const [, r] of asJson.table('LS'))
          expect(Object.isFrozen(r) && Object.isFrozen(r.ports) && Object.isFrozen(r.external_ids)).toBe(true);
        expect(asJson.lookup('LS', 'name', 'a').map((r) => r._uuid)).toEqual(
          asParsed.lookup('LS', 'name', 'a').map((r) => r._uuid),
        );
      }),
      fcParams(300),
    );
  });

  it('a malformed message changes nothing: no row, no index entry, no change event', () => {
    const c = makeCache();
    c.apply({ kind: 'reply', updates: {}, json: { LS: { [UUIDS[0] as string]: { initial: { name: 'a' } } } } });
    const before = c.snapshot();
    const events: unknown[] = [];
    c.onChange((ch) => events.push(ch));
    const bad = {
      LS: {
        [UUIDS[1] as string]: { insert: { name: 'b' } },
        [UUIDS[2] as string]: { insert: { tag: 'not a number' } },
      },
    };
    expect(() => c.apply({ kind: 'update', updates: {}, json: bad })).toThrow(OvsdbProtocolError);
    const noKind = {
      LS: { [UUIDS[1] as string]: { insert: { name: 'b' } }, [UUIDS[2] as string]: { insert: {}, delete: null } },
    };
    expect(() => c.apply({ kind: 'update', updates: {}, json: noKind })).toThrow(OvsdbProtocolError);
    expect(() => c.apply({ kind: 'update', updates: {}, json: { LS: { 'not-a-uuid': { delete: null } } } })).toThrow(
      OvsdbProtocolError,
    );
    expect(c.snapshot()).toEqual(before);
    expect(c.lookup('LS', 'name', 'b')).toEqual([]);
    expect(events).toEqual([]);
  });
});

describe('monitor events from the client', () => {
  it('carry the updates as received and parse them on demand', async () => {
    const stream = new FakeStream();
    const client = new OvsdbClient(new RpcConnection(stream));
    const events: MonitorEvent[] = [];
    const started = client.monitorCondSince('T', 'm', { LS: [{ columns: ['name'] }] }, undefined, (e) =>
      events.push(e),
    );
    await stream.waitSent(1);
    const initial = { LS: { [UUIDS[0] as string]: { initial: { name: 'a' } } } };
    stream.deliver({ id: stream.sent[0]?.id, result: [false, UUIDS[1], initial], error: null });
    const update = { LS: { [UUIDS[0] as string]: { modify: { name: 'b' } } } };
    stream.deliver({ id: null, method: 'update3', params: ['m', UUIDS[2], update] });
    await flush();
    const reply = await started;
    expect(reply.found).toBe(false);
    expect(reply.updates).toEqual(parseTableUpdates2(initial));
    expect(events.map((e) => [e.kind, e.json, e.lastTxnId])).toEqual([
      ['reply', initial, UUIDS[1]],
      ['update', update, UUIDS[2]],
    ]);
    expect(events[1]?.updates).toEqual(parseTableUpdates2(update));
    client.close();
  });
});
