/**
 * The model's table descriptions (model/topology/tables.ts) checked against
 * the NB schema the generated row types come from: every column named exists
 * with the shape and atom type the field implies, every reference matches the
 * schema's refTable/refType, every child table is non-root (it lives only in
 * its parent's column), and every table and column the backend writes for a
 * topology that uses every table is described and monitored.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type FieldSpec,
  TABLE_ORDER,
  TABLES,
  type TableName,
  emptyTopology,
  plan,
  tableSpec,
} from '../../../model/topology/index.ts';
import { fixtureInput, topologyOf } from '../../../model/topology/fixture.ts';
import { OpBuilder, OvsdbCache, nb, parseSchema } from '../ovsdb/index.ts';
import { type ColumnClaim, type TableClaim, checkClaims } from '../ovsdb/schema/claims.ts';
import { SCHEMA_SOURCES } from '../ovsdb/schema/generate.ts';
import { Batch } from './batch.ts';
import { memoParser } from './columns.ts';
import { addOperation } from './ops.ts';
import { INDEXES, MONITOR, NB_TABLE } from './tables.ts';
import { NbView } from './view.ts';

const source = SCHEMA_SOURCES.find((s) => s.out === 'ovn-nb.gen.ts')?.schema as string;
const schema = parseSchema(JSON.parse(readFileSync(source, 'utf8')));

/** The claims one field makes about its column. */
function fieldClaims(t: TableName, field: string, f: FieldSpec): ColumnClaim[] {
  const table = NB_TABLE[t];
  const by = `${t}.${field}`;
  if (f.column === undefined) return [];
  const at = { table, column: f.column, by };
  const ref = f.ref;
  switch (f.kind) {
    case 'map':
      return [{ ...at, shape: 'map', atom: 'string', ref: null }];
    case 'match':
      return [{ ...at, shape: 'one', atom: 'string', ref: null }];
    case 'rowSet': {
      const rows = f.rows as NonNullable<FieldSpec['rows']>;
      return [
        { ...at, shape: 'set', atom: 'uuid', ref: { table: rows.nbTable, strength: rows.strength } },
        ...Object.entries(rows.columns).map(([sub, column]) => ({
          table: rows.nbTable,
          column,
          shape: 'one' as const,
          ref: null,
          by: `${by}.${sub}`,
        })),
      ];
    }
    case 'set':
    case 'scalar': {
      const shape = f.kind === 'set' ? 'set' : 'scalar';
      if (ref?.by === 'uuid')
        return [{ ...at, shape, atom: 'uuid', ref: { table: NB_TABLE[ref.table], strength: ref.strength } }];
      return [{ ...at, shape, ...(ref?.by === 'name' ? { atom: 'string' as const } : {}), ref: null }];
    }
  }
}

function descriptionClaims(): { columns: ColumnClaim[]; tables: TableClaim[] } {
  const columns: ColumnClaim[] = [];
  const tables: TableClaim[] = [];
  for (const t of TABLE_ORDER) {
    const spec = tableSpec(t);
    for (const [field, f] of Object.entries(spec.fields as Readonly<Record<string, FieldSpec>>))
      columns.push(...fieldClaims(t, field, f));
    if (spec.parent === undefined) tables.push({ table: NB_TABLE[t], by: t });
    else tables.push({ table: NB_TABLE[t], root: false, by: `${t} (hangs off ${spec.parent.field})` });
    for (const s of spec.parent?.slots ?? [])
      columns.push({
        table: NB_TABLE[s.table],
        column: s.column,
        shape: 'set',
        atom: 'uuid',
        ref: { table: NB_TABLE[t], strength: s.strength },
        by: `${t}.${spec.parent?.field}`,
      });
  }
  return { columns, tables };
}

/** Every operation the backend builds to create, then delete, a topology that uses every table. */
function operationsFor(): { table: string; columns: string[] }[] {
  const cache = new OvsdbCache<nb.Tables>({ schema, tables: MONITOR, indexes: INDEXES });
  let n = 0;
  const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const batch = new Batch(new OpBuilder<nb.Tables>(schema), new NbView(cache), new Map(), uuid);
  const ctx = { view: batch.view, parse: memoParser() };
  plan(emptyTopology(), topologyOf(fixtureInput())).forEach((op, i) => addOperation(batch, ctx, op, i));
  return batch.finish(undefined).ops.flatMap((op) => {
    if (op.op === 'insert' || op.op === 'update') return [{ table: op.table, columns: Object.keys(op.row) }];
    if (op.op === 'mutate') return [{ table: op.table, columns: op.mutations.map((m) => m.column) }];
    if (op.op === 'wait' || op.op === 'delete') return [{ table: op.table, columns: [] }];
    return [];
  });
}

describe('NB table descriptions against the NB schema', () => {
  it('the schema read is the one the generated row types come from', () => {
    expect(`${schema.name} ${schema.version} ${schema.cksum}`).toBe(
      `${nb.SCHEMA_NAME} ${nb.SCHEMA_VERSION} ${nb.SCHEMA_CKSUM}`,
    );
  });

  it('every column a description names exists, with the shape, type and reference it claims', () => {
    const { columns, tables } = descriptionClaims();
    expect(columns.length).toBeGreaterThan(90);
    expect(checkClaims(schema, columns, tables).map((p) => p.message)).toEqual([]);
  });

  it('a wrong claim is caught (the check can fail)', () => {
    const wrong = { ...TABLES.portGroup.fields.ports, ref: { by: 'uuid', table: 'switchPort', strength: 'strong' } };
    const claims = fieldClaims('portGroup', 'ports', wrong as FieldSpec);
    expect(checkClaims(schema, claims, []).map((p) => p.code)).toEqual(['wrong-ref']);
    const missing = fieldClaims('acl', 'name', { kind: 'scalar', column: 'nmae' });
    expect(checkClaims(schema, missing, []).map((p) => p.code)).toEqual(['no-column']);
    expect(checkClaims(schema, [], [{ table: 'Logical_Switch', root: false, by: 'x' }]).map((p) => p.code)).toEqual([
      'wrong-root',
    ]);
  });

  it('every table and column the backend writes is described and monitored', () => {
    const written = operationsFor();
    expect(new Set(written.map((w) => w.table))).toEqual(new Set([...Object.values(NB_TABLE), 'Gateway_Chassis']));
    for (const w of written)
      for (const c of w.columns) expect(MONITOR[w.table as keyof typeof MONITOR], `${w.table}.${c}`).toContain(c);
  });
});
