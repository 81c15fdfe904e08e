/**
 * Keys and ids a peer chooses, which must stay data (issue 8, defects 4 and 6).
 */
import { describe, expect, it } from 'vitest';
import { OvsdbProtocolError, OvsdbSchemaError } from './errors.ts';
import { parseRpcMessage, rpcIdKey } from './jsonrpc.ts';
import { parseMonitorCondRequests } from './monitor.ts';
import { parseRow } from './operation.ts';
import { columnType, parseSchema } from './schema.ts';
import { parseTableUpdates2 } from './update.ts';

const U = '11111111-1111-1111-1111-111111111111';

describe('"__proto__" and other Object.prototype names as keys (defect 4)', () => {
  it('a row keeps a "__proto__" column as an own key and inherits nothing', () => {
    const row = parseRow(JSON.parse('{"__proto__": ["set", []], "name": "x"}'));
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(Object.keys(row).sort()).toEqual(['__proto__', 'name']);
    expect((row as Record<string, unknown>).items).toBeUndefined();
  });

  it('table updates keep a "__proto__" table and look up nothing for "constructor"', () => {
    const u = parseTableUpdates2(JSON.parse(`{"__proto__": {"${U}": {"insert": {"name": "x"}}}}`));
    expect(Object.keys(u)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(u, '__proto__')?.value?.[U]).toMatchObject({ kind: 'insert' });
    expect((u as Record<string, unknown>).constructor).toBeUndefined();
  });

  it('monitor requests keep a "__proto__" table', () => {
    const m = parseMonitorCondRequests(JSON.parse('{"__proto__": [{"columns": ["name"]}]}'));
    expect(Object.keys(m)).toEqual(['__proto__']);
  });

  it('a schema with a "__proto__" table or column: the names are data, unknown names still throw', () => {
    const s = parseSchema(
      JSON.parse(
        '{"name": "D", "tables": {"__proto__": {"columns": {"type": {"type": "string"}}}, "T": {"columns": {"__proto__": {"type": "integer"}}}}}',
      ),
    );
    expect(Object.keys(s.tables).sort()).toEqual(['T', '__proto__']);
    expect(columnType(s, '__proto__', 'type')).toMatchObject({ key: { type: 'string' } });
    expect(columnType(s, 'T', '__proto__')).toMatchObject({ key: { type: 'integer' } });
    expect(() => columnType(s, 'T', 'type')).toThrow(OvsdbSchemaError);
    expect(() => columnType(s, 'T', 'constructor')).toThrow(OvsdbSchemaError);
    expect(() => columnType(s, 'toString', 'x')).toThrow(OvsdbSchemaError);
  });
});

describe('JSON-RPC ids that do not survive a round trip (defect 6)', () => {
  it('refuses non-finite numbers anywhere in an id', () => {
    for (const text of [
      '{"id": 1e400, "result": [], "error": null}',
      '{"id": [1, -1e999], "result": 1, "error": null}',
    ]) {
      expect(() => parseRpcMessage(JSON.parse(text))).toThrow(OvsdbProtocolError);
    }
    expect(() => parseRpcMessage(JSON.parse('{"id": 1e400, "method": "echo", "params": []}'))).toThrow(
      /id .* does not survive/,
    );
  });

  it('an id nested thousands deep is the typed protocol error, not a stack overflow', () => {
    for (const n of [65, 4_000, 100_000]) {
      const list = JSON.parse(`{"id": ${'['.repeat(n)}${']'.repeat(n)}, "result": null, "error": null}`);
      const map = JSON.parse(`{"id": ${'{"a": '.repeat(n)}1${'}'.repeat(n)}, "method": "echo", "params": []}`);
      for (const m of [list, map]) {
        expect(() => parseRpcMessage(m), `${n}`).toThrow(OvsdbProtocolError);
        expect(() => parseRpcMessage(m)).toThrow(/id .* is nested deeper than 64 levels/);
      }
    }
    expect(
      parseRpcMessage(JSON.parse(`{"id": ${'['.repeat(64)}${']'.repeat(64)}, "result": null, "error": null}`)).kind,
    ).toBe('response');
  });

  it('accepts ids that do, and their keys stay distinct', () => {
    const a = parseRpcMessage(JSON.parse('{"id": 12, "result": [], "error": null}'));
    const b = parseRpcMessage(JSON.parse('{"id": "12", "result": [], "error": null}'));
    expect(a.kind === 'response' && b.kind === 'response' && rpcIdKey(a.id) !== rpcIdKey(b.id)).toBe(true);
    expect(parseRpcMessage(JSON.parse('{"id": ["echo", 1.5], "method": "echo", "params": []}')).kind).toBe('request');
  });
});

describe('schema enums (found by a fuzz target of the wire helper branch)', () => {
  const withEnum = (key: unknown) => ({ name: 'D', tables: { T: { columns: { c: { type: { key } } } } } });

  it('a malformed enum is an OvsdbSchemaError naming it, like every other schema fault', () => {
    for (const e of [[['set'], ['x']], ['set', [['zx']]], JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`)]) {
      expect(() => parseSchema(withEnum({ type: 'string', enum: e }))).toThrow(OvsdbSchemaError);
      expect(() => parseSchema(withEnum({ type: 'string', enum: e }))).toThrow(
        /ovsdb schema tables\.T\.columns\.c\.type\.key\.enum: /,
      );
    }
  });

  it('enum atoms must be of the base type', () => {
    expect(() => parseSchema(withEnum({ type: 'integer', enum: ['set', [1, 'a']] }))).toThrow(
      /"a" is not of type integer/,
    );
    expect(
      parseSchema(withEnum({ type: 'integer', enum: ['set', [1, 2]] })).tables.T?.columns.c?.type.key.enum,
    ).toEqual([1, 2]);
  });
});
