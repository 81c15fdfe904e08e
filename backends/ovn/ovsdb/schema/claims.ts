/**
 * What a table description claims about a database schema, and the check of
 * those claims against the schema itself (the `.ovsschema` the generated row
 * types come from). The NB and Open_vSwitch descriptions turn themselves into
 * claims; their tests run {@link checkClaims} and expect no problems.
 */
import type { AtomType } from '../wire/atom.ts';
import type { ColumnType, DatabaseSchema } from '../wire/schema.ts';

/**
 * - `one`: exactly one atom; `optional`: zero or one; `scalar`: either.
 * - `set`: a set that may hold more than one atom; `map`: key → value pairs.
 */
export type ColumnShape = 'one' | 'optional' | 'scalar' | 'set' | 'map';

export interface ColumnClaim {
  readonly table: string;
  readonly column: string;
  readonly shape: ColumnShape;
  /** The key atom type (for a map, its key), when the description implies one. */
  readonly atom?: AtomType;
  /**
   * A uuid reference to this table and strength (for a map, by its values); `null` when the column must hold no
   * reference.
   */
  readonly ref?: { readonly table: string; readonly strength: 'strong' | 'weak' } | null;
  /** Who makes the claim (for messages), e.g. `switchPort.dhcpv4Options`. */
  readonly by: string;
}

export interface TableClaim {
  readonly table: string;
  /** Whether rows live without a reference from another row. */
  readonly root?: boolean;
  readonly by: string;
}

export type ClaimProblemCode = 'no-table' | 'no-column' | 'wrong-shape' | 'wrong-atom' | 'wrong-ref' | 'wrong-root';

/** A claim the schema does not bear out. */
export interface ClaimProblem {
  readonly code: ClaimProblemCode;
  readonly path: readonly [table: string, column?: string];
  readonly message: string;
}

function shapeOf(t: ColumnType): ColumnShape {
  if (t.value !== undefined) return 'map';
  if (t.max > 1) return 'set';
  return t.min === 0 ? 'optional' : 'one';
}

const shapeFits = (claimed: ColumnShape, actual: ColumnShape): boolean =>
  claimed === actual || (claimed === 'scalar' && (actual === 'one' || actual === 'optional'));

function checkColumn(schema: DatabaseSchema, c: ColumnClaim): ClaimProblem[] {
  const at = `${c.by}: ${schema.name} ${c.table}.${c.column}`;
  const table = schema.tables[c.table];
  if (table === undefined) return [{ code: 'no-table', path: [c.table], message: `${at}: no such table` }];
  const col = table.columns[c.column];
  if (col === undefined) return [{ code: 'no-column', path: [c.table, c.column], message: `${at}: no such column` }];
  const out: ClaimProblem[] = [];
  const path = [c.table, c.column] as const;
  const shape = shapeOf(col.type);
  if (!shapeFits(c.shape, shape)) out.push({ code: 'wrong-shape', path, message: `${at} is ${shape}, not ${c.shape}` });
  const key = col.type.key;
  if (c.atom !== undefined && key.type !== c.atom)
    out.push({ code: 'wrong-atom', path, message: `${at} holds ${key.type}, not ${c.atom}` });
  // A map references through its values (QoS.queues: queue number → Queue), anything else through its atoms.
  const refs = col.type.value ?? key;
  const anyRef = refs.refTable ?? key.refTable;
  if (c.ref === null && anyRef !== undefined)
    out.push({ code: 'wrong-ref', path, message: `${at} references ${anyRef}, but is described as no reference` });
  if (c.ref != null && (refs.refTable !== c.ref.table || (refs.refType ?? 'strong') !== c.ref.strength))
    out.push({
      code: 'wrong-ref',
      path,
      message: `${at} references ${refs.refTable ?? 'nothing'} (${refs.refType ?? 'strong'}), not ${c.ref.table} (${c.ref.strength})`,
    });
  return out;
}

function checkTable(schema: DatabaseSchema, c: TableClaim): ClaimProblem[] {
  const table = schema.tables[c.table];
  const at = `${c.by}: ${schema.name} ${c.table}`;
  if (table === undefined) return [{ code: 'no-table', path: [c.table], message: `${at}: no such table` }];
  if (c.root !== undefined && table.isRoot !== c.root)
    return [{ code: 'wrong-root', path: [c.table], message: `${at} is ${table.isRoot ? '' : 'not '}a root table` }];
  return [];
}

/**
 * Every claim the schema does not bear out.
 *
 * @example
 * checkClaims(nbSchema, [{ table: 'Port_Group', column: 'ports', shape: 'set', ref: { table: 'Logical_Switch_Port',
 * strength: 'weak' }, by: 'portGroup.ports' }], []) // []
 */
export function checkClaims(
  schema: DatabaseSchema,
  columns: readonly ColumnClaim[],
  tables: readonly TableClaim[],
): ClaimProblem[] {
  return [...tables.flatMap((c) => checkTable(schema, c)), ...columns.flatMap((c) => checkColumn(schema, c))];
}
