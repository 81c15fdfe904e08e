import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fcParams } from '../../../../test/fc.ts';
import {
  OvsdbAbortedError,
  OvsdbCanceledError,
  OvsdbConstraintViolationError,
  OvsdbDataError,
  OvsdbDatabaseNotAvailableError,
  OvsdbDomainError,
  OvsdbDuplicateUuidError,
  OvsdbDuplicateUuidNameError,
  OvsdbInternalError,
  OvsdbIoError,
  OvsdbNotLeaderError,
  OvsdbNotOwnerError,
  OvsdbNotSupportedError,
  OvsdbPermissionError,
  OvsdbRangeError,
  OvsdbReferentialIntegrityError,
  OvsdbResourcesExhaustedError,
  OvsdbServerError,
  OvsdbSyntaxError,
  OvsdbTimedOutError,
  OvsdbUnknownColumnError,
  OvsdbUnknownDatabaseError,
  OvsdbUnknownMethodError,
  OvsdbUnknownTableError,
  firstError,
  interpretTransactReply,
  serverError,
  OvsMap,
  OvsNamedUuid,
  OvsSet,
  OvsUuid,
  OvsdbProtocolError,
  OvsdbValueError,
  emitCondition,
  emitMonitorCondRequests,
  emitMonitorCondSinceReply,
  emitMutation,
  emitOperation,
  emitRpcMessage,
  emitSchema,
  emitTableUpdates2,
  emitTransactReply,
  emitValue,
  fromNative,
  parseColumnType,
  parseCondition,
  parseMonitorCondRequests,
  parseMonitorCondSinceReply,
  parseMutation,
  parseOperation,
  parseRpcMessage,
  parseSchema,
  parseTableUpdates2,
  parseTransactReply,
  parseValue,
  sortAtoms,
  toNative,
  type RpcMessage,
} from './index.ts';
import {
  columnTypeArb,
  mutationArb,
  nativeValueArb,
  monitorRequestsArb,
  operationArb,
  replyEntryArb,
  schemaArb,
  tableUpdatesArb,
  uuidArb,
  valueArb,
  whereArb,
} from '../testing/wire-arbitraries.ts';

/** What crosses the socket: JSON text. */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('wire round trips (parse ∘ emit = id, through JSON text)', () => {
  it('values: atoms, sets, maps, uuids, named-uuids', () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        expect(parseValue(viaJson(emitValue(v)))).toEqual(v);
      }),
      fcParams(300),
    );
  });
  it('conditions (including boolean conditions)', () => {
    fc.assert(
      fc.property(
        whereArb,
        (w) =>
          void w.forEach((c) => {
            expect(parseCondition(viaJson(emitCondition(c)))).toEqual(c);
          }),
      ),
      fcParams(200),
    );
  });
  it('mutations', () => {
    fc.assert(
      fc.property(mutationArb, (m) => {
        expect(parseMutation(viaJson(emitMutation(m)))).toEqual(m);
      }),
      fcParams(200),
    );
  });
  it('operations of every kind', () => {
    fc.assert(
      fc.property(operationArb, (op) => {
        expect(parseOperation(viaJson(emitOperation(op)))).toEqual(op);
      }),
      fcParams(400),
    );
  });
  it('transact replies', () => {
    fc.assert(
      fc.property(fc.array(replyEntryArb, { maxLength: 5 }), (r) => {
        expect(parseTransactReply(viaJson(emitTransactReply(r)))).toEqual(r);
      }),
      fcParams(200),
    );
  });
  it('table-updates2 and monitor_cond_since replies', () => {
    fc.assert(
      fc.property(tableUpdatesArb, fc.boolean(), uuidArb, (updates, found, lastTxnId) => {
        expect(parseTableUpdates2(viaJson(emitTableUpdates2(updates)))).toEqual(updates);
        const reply = { found, lastTxnId, updates };
        expect(parseMonitorCondSinceReply(viaJson(emitMonitorCondSinceReply(reply)))).toEqual(reply);
      }),
      fcParams(200),
    );
  });
  it('monitor-cond-requests', () => {
    fc.assert(
      fc.property(monitorRequestsArb, (r) => {
        expect(parseMonitorCondRequests(viaJson(emitMonitorCondRequests(r)))).toEqual(r);
      }),
      fcParams(200),
    );
  });
  it('schemas', () => {
    fc.assert(
      fc.property(schemaArb, (s) => {
        expect(parseSchema(viaJson(emitSchema(s)))).toEqual(s);
      }),
      fcParams(200),
    );
  });
  it('JSON-RPC messages', () => {
    const msgArb: fc.Arbitrary<RpcMessage> = fc.oneof(
      fc.record({
        kind: fc.constant('request' as const),
        id: fc.oneof(fc.nat(), fc.string()),
        method: fc.string({ minLength: 1 }),
        params: fc.jsonValue(),
      }),
      fc.record({
        kind: fc.constant('notification' as const),
        method: fc.string({ minLength: 1 }),
        params: fc.jsonValue(),
      }),
      fc.record({
        kind: fc.constant('response' as const),
        id: fc.oneof(fc.nat(), fc.string()),
        result: fc.jsonValue(),
        error: fc.constant(null),
      }),
      fc.record({
        kind: fc.constant('response' as const),
        id: fc.nat(),
        result: fc.constant(null),
        error: fc.oneof(fc.string(), fc.record({ error: fc.string() })),
      }),
    );
    fc.assert(
      fc.property(msgArb, (m) => {
        expect(parseRpcMessage(viaJson(emitRpcMessage(m)))).toEqual(viaJson(m));
      }),
      fcParams(300),
    );
  });
});

describe('typed values by column type (native ⇄ wire)', () => {
  it('fromNative → JSON → toNative gives back the native value, for every column type', () => {
    fc.assert(
      fc.property(
        columnTypeArb.chain((t) => fc.tuple(fc.constant(t), nativeValueArb(t))),
        ([type, native]) => {
          const wire = parseValue(viaJson(emitValue(fromNative(type, native, 'T.c'))));
          const expected = Array.isArray(native) ? sortAtoms([...native]) : native;
          expect(toNative(type, wire, 'T.c')).toEqual(expected);
        },
      ),
      fcParams(500),
    );
  });
  const uuidSet = parseColumnType({ key: { type: 'uuid', refTable: 'P' }, min: 0, max: 'unlimited' });
  const strMap = parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' });
  const intMap = parseColumnType({ key: 'integer', value: { type: 'uuid' }, min: 0, max: 'unlimited' });
  const optInt = parseColumnType({ key: 'integer', min: 0, max: 1 });
  const u = '0b8e7f4c-1111-2222-3333-444455556666';
  it('uuid strings become ["uuid"], other strings ["named-uuid"]', () => {
    expect(fromNative(uuidSet, [u, 'newport'], 'T.c')).toEqual(
      new OvsSet([new OvsUuid(u), new OvsNamedUuid('newport')]),
    );
  });
  it('maps are records; integer keys come back as numbers on the wire', () => {
    expect(emitValue(fromNative(strMap, { vendor: 'kovn' }, 'T.c'))).toEqual(['map', [['vendor', 'kovn']]]);
    expect(emitValue(fromNative(intMap, { 7: u }, 'T.c'))).toEqual(['map', [[7, ['uuid', u]]]]);
    expect(toNative(intMap, new OvsMap([[7, new OvsUuid(u)]]), 'T.c')).toEqual({ '7': u });
  });
  it('optional columns are T | undefined; the empty set is undefined', () => {
    expect(emitValue(fromNative(optInt, undefined, 'T.c'))).toEqual(['set', []]);
    expect(emitValue(fromNative(optInt, 5, 'T.c'))).toBe(5);
    expect(toNative(optInt, new OvsSet([]), 'T.c')).toBeUndefined();
  });
  it('rejects wrong natives with OvsdbValueError naming the column', () => {
    expect(() => fromNative(optInt, 'x', 'Logical_Switch.other')).toThrow(OvsdbValueError);
    expect(() => fromNative(optInt, [1, 2], 'Logical_Switch.other')).toThrow(/Logical_Switch.other/);
    expect(() => fromNative(strMap, ['a'], 'T.m')).toThrow(OvsdbValueError);
  });
  it('rejects server values that break the column type as protocol errors', () => {
    expect(() => toNative(optInt, 'x', 'T.c')).toThrow(OvsdbProtocolError);
    expect(() => toNative(strMap, 'x', 'T.c')).toThrow(OvsdbProtocolError);
    expect(() => parseValue(['uuid', 'nope'])).toThrow(OvsdbProtocolError);
    expect(() => parseValue({ a: 1 })).toThrow(OvsdbProtocolError);
  });
});

describe('installed schemas', () => {
  const files = [
    '/usr/share/ovn/ovn-nb.ovsschema',
    '/usr/share/ovn/ovn-sb.ovsschema',
    '/usr/share/openvswitch/vswitch.ovsschema',
  ];
  it.each(files)('%s parses and emit/parse is a fixed point', (f) => {
    const s = parseSchema(JSON.parse(readFileSync(f, 'utf8')));
    expect(parseSchema(viaJson(emitSchema(s)))).toEqual(s);
    expect(Object.keys(s.tables).length).toBeGreaterThan(5);
  });
  it('NB column types come out typed', () => {
    const nb = parseSchema(JSON.parse(readFileSync(files[0] as string, 'utf8')));
    const ports = nb.tables.Logical_Switch?.columns.ports?.type;
    expect(ports).toEqual({
      key: { type: 'uuid', refTable: 'Logical_Switch_Port', refType: 'strong' },
      min: 0,
      max: Infinity,
    });
    expect(nb.tables.ACL?.columns.direction?.type.key.enum).toEqual(['from-lport', 'to-lport']);
    expect(nb.tables.Logical_Switch_Port?.indexes).toEqual([['name']]);
  });
});

describe('server errors: one class per error string', () => {
  const cases: [string, new (...a: never[]) => OvsdbServerError][] = [
    ['constraint violation', OvsdbConstraintViolationError],
    ['referential integrity violation', OvsdbReferentialIntegrityError],
    ['resources exhausted', OvsdbResourcesExhaustedError],
    ['I/O error', OvsdbIoError],
    ['duplicate uuid-name', OvsdbDuplicateUuidNameError],
    ['domain error', OvsdbDomainError],
    ['range error', OvsdbRangeError],
    ['timed out', OvsdbTimedOutError],
    ['not supported', OvsdbNotSupportedError],
    ['aborted', OvsdbAbortedError],
    ['not owner', OvsdbNotOwnerError],
    ['unknown database', OvsdbUnknownDatabaseError],
    ['syntax error', OvsdbSyntaxError],
    ['unknown column', OvsdbUnknownColumnError],
    ['duplicate uuid', OvsdbDuplicateUuidError],
    ['internal error', OvsdbInternalError],
    ['ovsdb error', OvsdbDataError],
    ['permission error', OvsdbPermissionError],
    ['canceled', OvsdbCanceledError],
    ['not leader', OvsdbNotLeaderError],
    ['database not available', OvsdbDatabaseNotAvailableError],
    ['unknown method', OvsdbUnknownMethodError],
  ];
  it.each(cases)('%j → %o', (error, cls) => {
    const e = serverError({ error, details: 'd' }, { opIndex: 2, table: 'ACL' });
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(OvsdbServerError);
    expect([e.error, e.opIndex, e.table, e.details]).toEqual([error, 2, 'ACL', 'd']);
    expect(e.code).toBe(error.replace(/[\s/]+/g, '-').toLowerCase());
    expect(e.message).toBe(`ovsdb: operation 2, table ACL: ${error}: d`);
    expect(new Set(cases.map(([, c]) => c.name)).size).toBe(cases.length);
  });
  it('unknown strings give the base class; "No table named" gives OvsdbUnknownTableError', () => {
    expect(serverError({ error: 'something new' }).constructor).toBe(OvsdbServerError);
    expect(
      serverError({ error: 'syntax error', details: 'Parsing ovsdb operation 1 of 1 failed: No table named X.' }),
    ).toBeInstanceOf(OvsdbUnknownTableError);
  });
  it('commit-time errors take the table from the details', () => {
    const reply = parseTransactReply([
      { uuid: ['uuid', '0b8e7f4c-1111-2222-3333-444455556666'] },
      {
        error: 'referential integrity violation',
        details: 'Table Logical_Switch column ports row x references nonexistent row y in table Logical_Switch_Port.',
      },
    ]);
    const e = firstError([{ op: 'insert', table: 'Logical_Switch', row: {} }], reply);
    expect(e).toBeInstanceOf(OvsdbReferentialIntegrityError);
    expect([e?.opIndex, e?.table]).toEqual([undefined, 'Logical_Switch']);
    const dup = serverError({
      error: 'constraint violation',
      details:
        'Transaction causes multiple rows in "Logical_Switch_Port" table to have identical values (p) for index on column "name".',
    });
    expect(dup.table).toBe('Logical_Switch_Port');
  });
  it('interpretTransactReply checks result shapes against the operations', () => {
    expect(() => interpretTransactReply([{ op: 'insert', table: 'T', row: {} }], [{}])).toThrow(OvsdbProtocolError);
    expect(() => interpretTransactReply([{ op: 'comment', comment: '' }, { op: 'abort' }], [{}])).toThrow(
      /1 results for 2 operations/,
    );
    expect(interpretTransactReply([{ op: 'delete', table: 'T', where: [] }], [{ count: 3 }])).toEqual([{ count: 3 }]);
  });
});
