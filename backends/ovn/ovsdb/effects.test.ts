import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EffectWatch, expectedEffects } from './effects.ts';
import { OvsdbCache } from './cache.ts';
import { OpBuilder } from './build.ts';
import { ManualTimers } from './timers.ts';
import { parseSchema } from './wire/schema.ts';
import type { nb } from './schema/index.ts';

const schema = parseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const b = new OpBuilder<nb.Tables>(schema);
const U1 = '00000000-0000-0000-0000-000000000001';
const U2 = '00000000-0000-0000-0000-000000000002';
const cache = () =>
  new OvsdbCache<nb.Tables>({ schema, tables: { Logical_Switch: ['name'], Logical_Switch_Port: ['name'] } });

describe('expectedEffects', () => {
  it('expects inserted root rows and rows deleted by uuid, in cached tables only', () => {
    const c = cache();
    const ops = [
      b.insert('Logical_Switch', { name: 'a' }),
      b.insert('Logical_Switch_Port', { name: 'p' }), // non-root: may be garbage-collected
      b.insert('Address_Set', { name: 's' }), // not cached
      b.delete('Logical_Switch', [b.whereUuid(U2)]), // another row: cannot delete the insert
    ];
    expect(expectedEffects(c, ops, [{ uuid: U1 }, { uuid: U2 }, { uuid: U2 }, { count: 1 }])).toEqual({
      present: [['Logical_Switch', U1]],
      absent: [['Logical_Switch', U2]],
    });
    // Deleting by condition: which rows is unknown, nothing to expect.
    expect(expectedEffects(c, [b.delete('Logical_Switch', [['name', '==', 'x']])], [{ count: 1 }])).toEqual({
      present: [],
      absent: [],
    });
    // An insert followed by a delete that may match it (by condition, or by its uuid-name) may not survive the
    // transaction.
    expect(
      expectedEffects(
        c,
        [b.insert('Logical_Switch', { name: 'a' }), b.delete('Logical_Switch', [['name', '==', 'a']])],
        [{ uuid: U1 }, { count: 1 }],
      ).present,
    ).toEqual([]);
    expect(
      expectedEffects(
        c,
        [
          b.insert('Logical_Switch', { name: 'a' }, { uuidName: 'n' }),
          b.delete('Logical_Switch', [['_uuid', '==', 'n']]),
        ],
        [{ uuid: U1 }, { count: 1 }],
      ).present,
    ).toEqual([]);
  });
});

describe('EffectWatch', () => {
  it('counts an insert as seen even if a later update deleted the row before the check', () => {
    const c = cache();
    const ops = [b.insert('Logical_Switch', { name: 'a' })];
    const watch = new EffectWatch(c, ops);
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'insert', row: { name: 'a' } } } } });
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'delete' } } } }); // another client's delete
    expect(c.has('Logical_Switch', U1)).toBe(false);
    expect(watch.seen(expectedEffects(c, ops, [{ uuid: U1 }]))).toBe(true);
    watch.dispose();
  });
  it('waits for effects that arrive after the reply, and times out on ones that never do', async () => {
    const timers = new ManualTimers();
    const c = cache();
    const ops = [b.insert('Logical_Switch', { name: 'a' })];
    const w1 = new EffectWatch(c, ops);
    const p1 = w1.wait(expectedEffects(c, ops, [{ uuid: U1 }]), { timeoutMs: 100, timers });
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'insert', row: { name: 'a' } } } } });
    await expect(p1).resolves.toBeUndefined();
    const w2 = new EffectWatch(c, ops);
    const p2 = w2.wait(expectedEffects(c, ops, [{ uuid: U2 }]), { timeoutMs: 100, timers });
    timers.advance(100);
    await expect(p2).rejects.toMatchObject({ code: 'cache-timeout' });
    expect(timers.pending).toBe(0);
  });
  it('counts a delete as seen even if the row came back before the check, and ignores tables the schema lacks', () => {
    const c = cache();
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'insert', row: { name: 'a' } } } } });
    const ops = [
      b.delete('Logical_Switch', [b.whereUuid(U1)]),
      { op: 'insert' as const, table: 'No_Such_Table', row: {} },
    ];
    const watch = new EffectWatch(c, ops);
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'delete' } } } });
    // re-created meanwhile
    c.apply({ kind: 'update', updates: { Logical_Switch: { [U1]: { kind: 'insert', row: { name: 'a' } } } } });
    expect(watch.seen({ present: [], absent: [['Logical_Switch', U1]] })).toBe(true);
    expect(watch.seen({ present: [], absent: [['Logical_Switch', U2]] })).toBe(true); // never there
    watch.dispose();
  });
});
