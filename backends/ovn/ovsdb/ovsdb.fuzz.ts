/**
 * Fuzz targets of everything the OVSDB client parses from a server: bytes
 * through the framing, JSON-RPC messages, datums, table updates, transact
 * replies and schemas. Any input ⇒ a value or the typed OvsdbProtocolError
 * (OvsdbSchemaError for schemas), never another exception, never a hang;
 * accepted values emit back to what parses to the same value.
 */
import fc from 'fast-check';
import { hostileJson, mutatedJson, mutatedJsonText } from '../../../test/fuzz/mutate.ts';
import { type FuzzTarget, fuzzTarget } from '../../../test/fuzz/target.ts';
import { OvsdbClient } from './client.ts';
import { JsonSplitter } from './framing.ts';
import { RpcConnection } from './rpc.ts';
import { FakeStream, flush } from './testing/fake-stream.ts';
import { idArb, operationArb, rowArb, uuidArb, valueArb } from './testing/wire-arbitraries.ts';
import {
  emitOperation,
  emitRow,
  emitTableUpdates2,
  emitTransactReply,
  emitValue,
  OvsdbClientError,
  OvsdbServerError,
  parseRpcMessage,
  parseSchema,
  parseTableUpdates2,
  parseTransactReply,
  parseValue,
} from './wire/index.ts';

/** Typed rejections: the client's own error classes (protocol, schema, ...). */
function typed<T>(f: () => T): T | 'rejected' {
  try {
    return f();
  } catch (e) {
    if (e instanceof OvsdbClientError) return 'rejected';
    throw e;
  }
}

const canonical = (v: unknown) => JSON.stringify(v);

const updatesArb = fc
  .dictionary(
    idArb,
    fc.dictionary(
      uuidArb,
      fc.oneof(
        rowArb.map((row) => ({ kind: 'insert' as const, row })),
        rowArb.map((row) => ({ kind: 'modify' as const, row })),
        fc.constant({ kind: 'delete' as const }),
      ),
      { maxKeys: 3 },
    ),
    { maxKeys: 3 },
  )
  .map((u) => emitTableUpdates2(u));

const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.nat(), fc.array(operationArb, { maxLength: 3 })).map(([id, ops]) => ({
    id,
    method: 'transact',
    params: ['OVN_Northbound', ...ops.map(emitOperation)],
  })),
  fc.tuple(fc.nat({ max: 2 }), fc.array(rowArb, { maxLength: 3 })).map(([id, rows]) => ({
    id,
    result: [{ rows: rows.map(emitRow) }, { count: 1 }, { uuid: ['uuid', '11111111-1111-1111-1111-111111111111'] }],
    error: null,
  })),
  updatesArb.map((u) => ({ id: null, method: 'update2', params: ['monid', u] })),
  fc.string({ maxLength: 8 }).map((s) => ({ id: 'echo', method: 'echo', params: [s] })),
  fc.nat({ max: 2 }).map((id) => ({ id, result: null, error: { error: 'constraint violation', details: 'x' } })),
);

const SCHEMA = {
  name: 'OVN_Northbound',
  version: '7.0.0',
  tables: {
    Logical_Switch: {
      columns: {
        name: { type: 'string' },
        ports: {
          type: { key: { type: 'uuid', refTable: 'Logical_Switch_Port', refType: 'strong' }, min: 0, max: 'unlimited' },
        },
        other_config: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
      },
      isRoot: true,
      indexes: [['name']],
    },
    Logical_Switch_Port: {
      columns: {
        name: { type: 'string' },
        tag: { type: { key: { type: 'integer', minInteger: 1, maxInteger: 4095 }, min: 0, max: 1 } },
        type: { type: { key: { type: 'string', enum: ['set', ['', 'router', 'localnet']] } } },
      },
    },
  },
};

export const targets: FuzzTarget[] = [
  fuzzTarget({
    name: 'ovsdb/value',
    arbitrary: mutatedJson(valueArb.map(emitValue)),
    run(json) {
      const v = typed(() => parseValue(json));
      if (v === 'rejected') return 'rejected';
      const text = canonical(emitValue(v));
      const again = parseValue(JSON.parse(text));
      if (canonical(emitValue(again)) !== text) throw new Error(`value does not round-trip: ${text}`);
      return 'accepted';
    },
  }),
  fuzzTarget({
    name: 'ovsdb/table-updates2',
    arbitrary: mutatedJson(updatesArb),
    run(json) {
      const u = typed(() => parseTableUpdates2(json));
      if (u === 'rejected') return 'rejected';
      const text = canonical(emitTableUpdates2(u));
      if (canonical(emitTableUpdates2(parseTableUpdates2(JSON.parse(text)))) !== text)
        throw new Error('table updates do not round-trip');
      return 'accepted';
    },
  }),
  fuzzTarget({
    name: 'ovsdb/transact-reply',
    arbitrary: mutatedJson(
      fc.array(rowArb, { maxLength: 3 }).map((rows) => [{ rows: rows.map(emitRow) }, { count: 2 }, {}]),
    ),
    run(json) {
      const r = typed(() => parseTransactReply(json));
      if (r === 'rejected') return 'rejected';
      const text = canonical(emitTransactReply(r));
      if (canonical(emitTransactReply(parseTransactReply(JSON.parse(text)))) !== text)
        throw new Error('transact reply does not round-trip');
      return 'accepted';
    },
  }),
  fuzzTarget({
    name: 'ovsdb/schema',
    arbitrary: mutatedJson(fc.constant(SCHEMA)),
    run(json) {
      return typed(() => parseSchema(json)) === 'rejected' ? 'rejected' : 'accepted';
    },
  }),
  fuzzTarget({
    name: 'ovsdb/rpc-stream',
    // Message texts through a real client's receive path (framing, JSON-RPC, dispatch), concatenated and cut into
    // chunks anywhere, some mutated; a transact is waiting for id 1. The client either stays up or closes with
    // its typed error, and the waiting transact settles with a value or a typed error.
    arbitrary: fc.tuple(
      fc.array(mutatedJsonText(messageArb), { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 4 }),
    ),
    async run([texts, cuts]) {
      const stream = new FakeStream();
      const rpc = new RpcConnection(stream, { probeIntervalMs: 0 });
      const client = new OvsdbClient(rpc);
      let closedWith: Error | undefined;
      rpc.onClose((reason) => {
        closedWith = reason;
      });
      const pending = client.transactRaw('OVN_Northbound', []).then(
        () => undefined,
        (e: unknown) => e,
      );
      const bytes = Buffer.from(texts.join(''));
      let at = 0;
      for (const p of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
        stream.push(bytes.subarray(at, p));
        at = p;
      }
      stream.push(bytes.subarray(at));
      await flush();
      rpc.close();
      const settled = await pending;
      if (settled !== undefined && !(settled instanceof OvsdbClientError || settled instanceof OvsdbServerError))
        throw new Error(`transact settled with ${String(settled)}`);
      if (closedWith !== undefined && !(closedWith instanceof OvsdbClientError))
        throw new Error(`closed with ${String(closedWith)}`);
      return closedWith === undefined || /closed by client/.test(closedWith.message) ? 'accepted' : 'rejected';
    },
  }),
  fuzzTarget({
    name: 'ovsdb/raw-bytes',
    arbitrary: fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      hostileJson.map((j) => new TextEncoder().encode(JSON.stringify(j) ?? '')),
    ),
    run(bytes) {
      const out = typed(() => {
        const s = new JsonSplitter();
        for (const json of s.push(Buffer.from(bytes))) parseRpcMessage(json);
        return true;
      });
      return out === 'rejected' ? 'rejected' : 'accepted';
    },
  }),
];
