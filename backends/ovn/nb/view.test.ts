/**
 * The view's reverse map of parents is patched by each cache change: at
 * every step its answer is the one a view built from the cache then gives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OvsdbCache, type nb } from '../ovsdb/index.ts';
import { parseSchema } from '../ovsdb/wire/schema.ts';
import { NbView } from './view.ts';

const schema = parseSchema(JSON.parse(readFileSync('/usr/share/ovn/ovn-nb.ovsschema', 'utf8')));
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [LS_A, LS_B, LS_X, P1, P2] = [1, 2, 3, 11, 12].map(uuid) as [string, string, string, string, string];
const ours = ['map', [['vendor', 'kovn']]];
const ports = (...u: string[]) => ['set', u.map((x) => ['uuid', x])];

describe('NbView.parentOf', () => {
  it('follows inserts, moves between parents, foreign parents and deletes as a rebuilt view does', () => {
    const cache = new OvsdbCache<nb.Tables>({
      schema,
      // Every table: the view's parents live in several (switches, routers, port groups).
      tables: Object.fromEntries([...Object.keys(schema.tables)].map((t) => [t, undefined])),
    });
    const view = new NbView(cache);
    const parent = (v: NbView, p: string) => v.parentOf('switchPort', p)?.name;
    const both = (p: string) => [parent(view, p), parent(new NbView(cache), p)];
    const update = (json: unknown) => cache.apply({ kind: 'update', updates: {}, json } as never);
    cache.apply({
      kind: 'reply',
      updates: {},
      json: {
        Logical_Switch_Port: {
          [P1]: { initial: { name: 'p1', external_ids: ours } },
          [P2]: { initial: { name: 'p2', external_ids: ours } },
        },
        Logical_Switch: { [LS_A]: { initial: { name: 'a', ports: ports(P1, P2), external_ids: ours } } },
      },
    } as never);
    expect(both(P1)).toEqual(['a', 'a']); // built on first use
    // P1 moves from a to b (b inserted, a modified: a set column's modify is the difference).
    update({
      Logical_Switch: {
        [LS_B]: { insert: { name: 'b', ports: ports(P1), external_ids: ours } },
        [LS_A]: { modify: { ports: ports(P1) } },
      },
    });
    expect(both(P1)).toEqual(['b', 'b']);
    expect(both(P2)).toEqual(['a', 'a']);
    // A switch not ours holding P2 too is no parent of ours.
    update({ Logical_Switch: { [LS_X]: { insert: { name: 'x', ports: ports(P2) } } } });
    expect(both(P2)).toEqual(['a', 'a']);
    // Held by two of ours (only by hand): the lowest uuid wins, in both.
    update({ Logical_Switch: { [LS_B]: { modify: { ports: ports(P2) } } } });
    expect(both(P2)).toEqual(['a', 'a']);
    update({ Logical_Switch: { [LS_A]: { delete: null } } });
    expect(both(P2)).toEqual(['b', 'b']);
    // b no longer ours: its children have no parent of ours.
    update({ Logical_Switch: { [LS_B]: { modify: { external_ids: ours } } } });
    expect(both(P1)).toEqual([undefined, undefined]);
    expect(both(P2)).toEqual([undefined, undefined]);
  });
});
