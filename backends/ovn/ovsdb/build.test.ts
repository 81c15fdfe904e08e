import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fcParams } from '../../../test/fc.ts';
import { OpBuilder } from './build.ts';
import { replayVerdict } from './replay.ts';
import { parseSchema } from './wire/schema.ts';
import { OvsMap, OvsSet } from './wire/datum.ts';
import { OvsNamedUuid, OvsUuid } from './wire/atom.ts';
import { OvsdbSchemaError, OvsdbValueError } from './wire/errors.ts';
import { emitOperation, parseOperation } from './wire/operation.ts';
import type { nb } from './schema/index.ts';

const schema = parseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const b = new OpBuilder<nb.Tables>(schema);
const U = '0b8e7f4c-1111-2222-3333-444455556666';

describe('OpBuilder', () => {
  it('converts native rows by column type', () => {
    const op = b.insert(
      'ACL',
      {
        action: 'drop',
        direction: 'to-lport',
        match: 'ip4',
        priority: 2000,
        external_ids: { vendor: 'kovn' },
        name: 'x',
        meter: undefined,
      },
      { uuidName: 'acl' },
    );
    expect(op).toEqual({
      op: 'insert',
      table: 'ACL',
      uuidName: 'acl',
      row: {
        action: 'drop',
        direction: 'to-lport',
        match: 'ip4',
        priority: 2000,
        external_ids: new OvsMap([['vendor', 'kovn']]),
        name: 'x',
        meter: new OvsSet([]),
      },
    });
  });
  it('builds conditions: includes on maps, ordered comparisons on scalars, _uuid', () => {
    expect(
      b.select('Logical_Switch_Port', [
        ['external_ids', 'includes', { 'kovn-key': 'k' }],
        ['tag', '<', 5],
        b.whereUuid(U),
      ]).where,
    ).toEqual([
      { column: 'external_ids', function: 'includes', value: new OvsMap([['kovn-key', 'k']]) },
      { column: 'tag', function: '<', value: 5 },
      { column: '_uuid', function: '==', value: new OvsUuid(U) },
    ]);
  });
  it('builds mutations: set insert/delete, map delete by keys or pairs, arithmetic', () => {
    const op = b.mutate(
      'Logical_Switch',
      [],
      [
        ['ports', 'insert', ['newport']],
        ['ports', 'delete', U],
        ['external_ids', 'delete', ['a', 'b']],
        ['external_ids', 'delete', { c: '1' }],
      ],
    );
    expect(op.mutations.map((m) => m.value)).toEqual([
      new OvsSet([new OvsNamedUuid('newport')]),
      new OvsSet([new OvsUuid(U)]),
      new OvsSet(['a', 'b']),
      new OvsMap([['c', '1']]),
    ]);
    expect(b.mutate('NB_Global', [], [['nb_cfg', '+=', 1]]).mutations[0]?.value).toBe(1);
  });
  it('names table and column in errors', () => {
    expect(() => b.insert('ACL', { priority: 'high' as unknown as number })).toThrow(OvsdbValueError);
    expect(() => b.insert('ACL', { priority: 'high' as unknown as number })).toThrow(/ACL\.priority/);
    expect(() => b.select('Nope' as 'ACL', [])).not.toThrow(); // no columns touched, nothing to check
    expect(() => b.select('Nope' as 'ACL', [['name', '==', 'x']])).toThrow(OvsdbSchemaError);
    expect(() => b.insert('ACL', { nosuch: 1 } as never)).toThrow(/no column nosuch in table ACL/);
  });
  it('guardedInsert: a wait (timeout 0, no rows) on the row own unique values, then the insert', () => {
    const [wait, ins] = b.guardedInsert(
      'ACL',
      { priority: 1, external_ids: { 'kovn-key': 'k1', vendor: 'kovn' } },
      { unique: ['external_ids:kovn-key'], uuidName: 'a1' },
    );
    expect(wait).toEqual({
      op: 'wait',
      table: 'ACL',
      where: [{ column: 'external_ids', function: 'includes', value: new OvsMap([['kovn-key', 'k1']]) }],
      columns: ['_uuid'],
      until: '==',
      rows: [],
      timeout: 0,
    });
    expect(ins.uuidName).toBe('a1');
    expect(() => b.guardedInsert('ACL', { priority: 1 }, { unique: ['external_ids:kovn-key'] })).toThrow(
      /no value for a unique map key/,
    );
    expect(() => b.guardedInsert('Logical_Switch', { name: 'x' }, { unique: [] })).toThrow(OvsdbValueError);
  });
  it('operations survive emit/parse', () => {
    const op = b.mutate('Logical_Switch', [b.whereUuid(U)], [['ports', 'insert', ['p']]]);
    expect(parseOperation(JSON.parse(JSON.stringify(emitOperation(op))))).toEqual(op);
  });
});

describe('replayVerdict: may an unacknowledged transaction be sent again?', () => {
  const acl = (key: string) => ({
    priority: 1,
    direction: 'to-lport' as const,
    action: 'drop' as const,
    match: 'ip4',
    external_ids: { 'kovn-key': key },
  });
  it('guarded inserts are safe, unguarded ones into tables without a unique index are not', () => {
    expect(replayVerdict(schema, b.guardedInsert('ACL', acl('k'), { unique: ['external_ids:kovn-key'] }))).toEqual({
      safe: true,
    });
    expect(replayVerdict(schema, [b.insert('ACL', acl('k'))])).toMatchObject({ safe: false, opIndex: 0 });
    // A guard on another key, table or with a timeout does not protect this insert.
    const [wait] = b.guardedInsert('ACL', acl('other'), { unique: ['external_ids:kovn-key'] });
    expect(replayVerdict(schema, [wait, b.insert('ACL', acl('k'))]).safe).toBe(false);
    expect(replayVerdict(schema, [{ ...wait, timeout: 100 }, b.insert('ACL', acl('other'))]).safe).toBe(false);
    expect(replayVerdict(schema, [{ ...wait, table: 'Address_Set' }, b.insert('ACL', acl('other'))]).safe).toBe(false);
  });
  it('inserts setting every column of a unique index are safe (the replay hits the index)', () => {
    expect(replayVerdict(schema, [b.insert('Logical_Switch_Port', { name: 'p1' })]).safe).toBe(true);
    expect(replayVerdict(schema, [b.insert('Logical_Switch_Port', { addresses: [] })]).safe).toBe(false);
  });
  it('idempotent mutations are safe, arithmetic ones are not', () => {
    expect(
      replayVerdict(schema, [
        b.mutate(
          'Logical_Switch',
          [],
          [
            ['ports', 'insert', [U]],
            ['external_ids', 'delete', ['a']],
          ],
        ),
      ]).safe,
    ).toBe(true);
    expect(replayVerdict(schema, [b.mutate('NB_Global', [], [['nb_cfg', '+=', 1]])])).toMatchObject({
      safe: false,
      reason: expect.stringContaining('+='),
    });
  });
  it('every guarded insert of any key is judged safe (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (key, name) => {
        // ACL has no unique index: only the guard makes this safe.
        const ops = b.guardedInsert('ACL', { ...acl(key), name }, { unique: ['external_ids:kovn-key'] });
        expect(replayVerdict(schema, ops).safe).toBe(true);
        expect(replayVerdict(schema, ops.slice(1)).safe).toBe(false);
      }),
      fcParams(100),
    );
  });
});
