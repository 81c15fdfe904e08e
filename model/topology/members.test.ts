import { describe, expect, it } from 'vitest';
import { applyPlan, PlanError, type Plan } from './plan.ts';
import { resolvePlan } from './apply.ts';
import { applyMembers, isMemberField } from './members.ts';
import { buildTopology } from './build.ts';

const pg = { name: 'pg', ports: ['a', 'b', 'c'], externalIds: {} };
const lb = {
  name: 'lb',
  vips: { '10.96.0.1:80': '10.16.0.2:80', '10.96.0.2:53': '10.16.0.3:53' },
  selectionFields: [],
  options: {},
  externalIds: {},
};

describe('membership mutates (OVSDB semantics, delete before insert)', () => {
  it('a set column loses the named members and gains the absent ones, in order, without duplicates', () => {
    expect(applyMembers('portGroup', pg, { ports: ['d', 'a', 'd'] }, { ports: ['b', 'zz'] })).toEqual({
      ...pg,
      ports: ['a', 'c', 'd'],
    });
    // delete then insert of the same member keeps it
    expect(applyMembers('portGroup', pg, { ports: ['b'] }, { ports: ['b'] })).toMatchObject({ ports: ['a', 'c', 'b'] });
  });

  it('a map column deletes by key, and insert does not overwrite a present key unless it was deleted first', () => {
    const kept = applyMembers('loadBalancer', lb, { vips: { '10.96.0.1:80': 'other:80' } }, undefined);
    expect(kept).toMatchObject({ vips: lb.vips });
    const replaced = applyMembers(
      'loadBalancer',
      lb,
      { vips: { '10.96.0.1:80': 'other:80', '10.96.0.9:80': 'x:80' } },
      { vips: ['10.96.0.1:80', '10.96.0.2:53'] },
    );
    expect(replaced).toMatchObject({ vips: { '10.96.0.1:80': 'other:80', '10.96.0.9:80': 'x:80' } });
  });

  it('keeps a "__proto__" key as an ordinary key', () => {
    const out = applyMembers('loadBalancer', lb, { vips: JSON.parse('{"__proto__":"x"}') }, undefined) as typeof lb;
    expect(Object.hasOwn(out.vips, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out.vips)).toBe(Object.prototype);
  });

  it('names a field that is not a membership column instead of changing it', () => {
    expect(isMemberField('portGroup', 'externalIds')).toBe(false);
    expect(applyMembers('portGroup', pg, { externalIds: { a: 'b' } } as never, undefined)).toEqual({
      badField: 'externalIds',
    });
  });

  it('applyPlan: mutates apply to the row, and bad mutates are typed errors that change nothing', () => {
    const { topology: t } = buildTopology({ portGroup: [pg], loadBalancer: [lb] });
    const ok: Plan = [{ op: 'mutate', table: 'portGroup', key: 'pg', insert: { ports: ['x'] } }];
    expect(applyPlan(ok, t).portGroup.get('pg')?.ports).toEqual(['a', 'b', 'c', 'x']);
    expect(t.portGroup.get('pg')?.ports).toEqual(['a', 'b', 'c']);
    const missing: Plan = [...ok, { op: 'mutate', table: 'portGroup', key: 'nope', delete: { ports: ['a'] } }];
    expect(() => applyPlan(missing, t)).toThrow(PlanError);
    expect(() => applyPlan(missing, t)).toThrow(/operation 1 \(mutate portGroup "nope"\): no such row to mutate/);
    const badField = [{ op: 'mutate', table: 'portGroup', key: 'pg', insert: { name: ['y'] } }] as unknown as Plan;
    expect(() => resolvePlan(badField, (table, key) => t[table].get(key))).toThrow(
      expect.objectContaining({ code: 'not-a-member-column' }),
    );
    const badTable = [{ op: 'mutate', table: 'acl', key: 'k', insert: {} }] as unknown as Plan;
    expect(() => resolvePlan(badTable, () => ({}))).toThrow(expect.objectContaining({ code: 'not-a-member-column' }));
  });

  it('resolvePlan follows a row through several operations of one plan', () => {
    const { topology: t } = buildTopology({ portGroup: [pg] });
    const out = resolvePlan(
      [
        { op: 'mutate', table: 'portGroup', key: 'pg', delete: { ports: ['a'] } },
        { op: 'mutate', table: 'portGroup', key: 'pg', insert: { ports: ['z'] } },
        { op: 'create', table: 'portGroup', key: 'pg2', row: { ...pg, name: 'pg2' } },
        { op: 'delete', table: 'portGroup', key: 'pg2' },
      ],
      (table, key) => t[table].get(key),
    );
    expect(out.get('portGroup')?.get('pg')).toMatchObject({ ports: ['b', 'c', 'z'] });
    expect(out.get('portGroup')?.has('pg2')).toBe(true);
    expect(out.get('portGroup')?.get('pg2')).toBeUndefined();
  });
});
