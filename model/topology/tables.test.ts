/**
 * The table descriptions hold together: keys name described fields, every
 * reference points to an earlier table (what the plan's order rests on), and
 * the typed key of a row formats to the row's key. The check against the
 * OVSDB schema is backends/ovn/nb/description.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { printMatch } from '../match/index.ts';
import { arbitraryTopology } from './arbitrary.ts';
import { fixtureInput } from './fixture.ts';
import { formatKey, keyOf, rowKey } from './keys.ts';
import { COLUMNS, type FieldSpec, MEMBER_FIELDS, TABLE_ORDER, parentOf, tableSpec } from './index.ts';
import type { TableName, Tables } from './types.ts';

const fieldsOf = (t: TableName) => Object.entries(tableSpec(t).fields as Readonly<Record<string, FieldSpec>>);

describe('table descriptions', () => {
  it('key fields are described fields', () => {
    for (const t of TABLE_ORDER) for (const k of tableSpec(t).key) expect(fieldsOf(t).map(([f]) => f)).toContain(k);
  });

  it('every reference and parent slot points to an earlier table', () => {
    for (const t of TABLE_ORDER) {
      const at = TABLE_ORDER.indexOf(t);
      for (const [field, f] of fieldsOf(t))
        if (f.ref !== undefined) expect(TABLE_ORDER.indexOf(f.ref.table), `${t}.${field}`).toBeLessThan(at);
      for (const s of tableSpec(t).parent?.slots ?? []) expect(TABLE_ORDER.indexOf(s.table), t).toBeLessThan(at);
    }
  });

  it('a parent link field is not stored in a column of its own; every other field but the DHCP name is', () => {
    for (const t of TABLE_ORDER)
      for (const [field, f] of fieldsOf(t)) {
        const unstored = field === tableSpec(t).parent?.field || (t === 'dhcpOptions' && field === 'name');
        expect(f.column === undefined, `${t}.${field}`).toBe(unstored);
      }
  });

  it('keeps each field kind as a literal type (the store types its set columns from it)', () => {
    const ports: (typeof COLUMNS)['portGroup']['ports'] = 'set';
    const vips: (typeof COLUMNS)['loadBalancer']['vips'] = 'map';
    expect([ports, vips, COLUMNS.acl.match, COLUMNS.routerPort.gatewayChassis]).toEqual([
      'set',
      'map',
      'match',
      'rowSet',
    ]);
  });

  it('membership fields are sets and maps', () => {
    expect(MEMBER_FIELDS).toEqual({
      addressSet: ['addresses'],
      loadBalancer: ['vips'],
      switch: ['loadBalancers'],
      router: ['loadBalancers'],
      portGroup: ['ports'],
    });
  });

  it('the parent of a child row is named by its parent field', () => {
    const acl = fixtureInput().acl.find((a) => a.attachTo.kind === 'port-group') as Tables['acl'];
    expect(parentOf('acl', acl)).toEqual({ table: 'portGroup', name: acl.attachTo.name, column: 'acls' });
    expect(parentOf('switch', fixtureInput().switch[0] as Tables['switch'])).toBeUndefined();
  });
});

describe('row keys', () => {
  it('the typed key of a row formats to the row key, and equal keys mean equal key fields', () => {
    fc.assert(
      fc.property(arbitraryTopology(), (topo) => {
        for (const t of TABLE_ORDER) {
          for (const [key, row] of topo[t] as ReadonlyMap<string, Tables[typeof t]>) {
            const k = rowKey(t, row);
            expect(formatKey(t, k)).toBe(key);
            expect(Object.keys(k).every((f) => (tableSpec(t).key as readonly string[]).includes(f))).toBe(true);
          }
        }
      }),
      fcParams(30),
    );
  });

  it('an unset route policy and dst-ip are one key', () => {
    const r = fixtureInput().staticRoute[0] as Tables['staticRoute'];
    expect(keyOf('staticRoute', { ...r, policy: undefined })).toBe(keyOf('staticRoute', { ...r, policy: 'dst-ip' }));
  });

  it('keeps the key text of earlier releases (NB rows carry it in external_ids:kovn-key)', () => {
    const nat = { router: 'ovn-cluster', type: 'snat', externalIp: '172.18.0.2', logicalIp: '10.16.0.0/16' } as const;
    expect(formatKey('nat', nat)).toBe('ovn-cluster|snat|172.18.0.2|10.16.0.0/16');
    const acl = fixtureInput().acl[0] as Tables['acl'];
    expect(keyOf('acl', acl)).toBe(
      [acl.attachTo.kind, acl.attachTo.name, acl.direction, acl.priority, printMatch(acl.match)].join('|'),
    );
  });
});
