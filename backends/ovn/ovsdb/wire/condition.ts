/**
 * Conditions (RFC 7047 §5.1 `<condition>`): `[column, function, value]`, plus
 * the ovsdb-server(7) §5.1 extension where a bare `true`/`false` is a
 * condition (monitor_cond `where` clauses).
 */
import { preview } from './json.ts';
import { OvsdbProtocolError } from './errors.ts';
import { type Value, emitValue, parseValue } from './datum.ts';

export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';

export const CONDITION_FUNCTIONS: readonly ConditionFunction[] = [
  '<',
  '<=',
  '==',
  '!=',
  '>=',
  '>',
  'includes',
  'excludes',
];

export interface ColumnCondition {
  readonly column: string;
  readonly function: ConditionFunction;
  readonly value: Value;
}

/** A column test, or a constant (true matches every row, false none). */
export type Condition = ColumnCondition | boolean;

/**
 * @example parseCondition(['name', '==', 'ls1']) // {column: 'name', function: '==', value: 'ls1'}
 */
export function parseCondition(json: unknown, path = 'condition'): Condition {
  if (typeof json === 'boolean') return json;
  if (!Array.isArray(json) || json.length !== 3 || typeof json[0] !== 'string') {
    throw new OvsdbProtocolError(`${path}: not a condition: ${preview(json)}`);
  }
  const fn = json[1];
  if (!(CONDITION_FUNCTIONS as readonly unknown[]).includes(fn)) {
    throw new OvsdbProtocolError(`${path}: unknown function ${preview(fn)}`);
  }
  return { column: json[0], function: fn as ConditionFunction, value: parseValue(json[2], `${path}[2]`) };
}

/** Inverse of {@link parseCondition}. */
export function emitCondition(cond: Condition): unknown {
  if (typeof cond === 'boolean') return cond;
  return [cond.column, cond.function, emitValue(cond.value)];
}

export function parseWhere(json: unknown, path = 'where'): Condition[] {
  if (!Array.isArray(json))
    throw new OvsdbProtocolError(`${path}: expected an array of conditions, got ${preview(json)}`);
  return json.map((c, i) => parseCondition(c, `${path}[${i}]`));
}

export function emitWhere(where: readonly Condition[]): unknown[] {
  return where.map(emitCondition);
}
