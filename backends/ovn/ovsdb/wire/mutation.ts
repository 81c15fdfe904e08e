/**
 * Mutations (RFC 7047 §5.1 `<mutation>`): `[column, mutator, value]`.
 * Arithmetic mutators apply to integer/real columns (or sets of them);
 * `insert`/`delete` add or remove set elements and map pairs (a set of keys
 * for `delete` on a map removes those keys whatever their values).
 */
import { preview } from './json.ts';
import { OvsdbProtocolError } from './errors.ts';
import { type Value, emitValue, parseValue } from './datum.ts';

export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';

export const MUTATORS: readonly Mutator[] = ['+=', '-=', '*=', '/=', '%=', 'insert', 'delete'];

export interface Mutation {
  readonly column: string;
  readonly mutator: Mutator;
  readonly value: Value;
}

/**
 * @example parseMutation(['ports', 'insert', ['set', [['named-uuid', 'p1']]]])
 */
export function parseMutation(json: unknown, path = 'mutation'): Mutation {
  if (!Array.isArray(json) || json.length !== 3 || typeof json[0] !== 'string') {
    throw new OvsdbProtocolError(`${path}: not a mutation: ${preview(json)}`);
  }
  if (!(MUTATORS as readonly unknown[]).includes(json[1])) {
    throw new OvsdbProtocolError(`${path}: unknown mutator ${preview(json[1])}`);
  }
  return { column: json[0], mutator: json[1] as Mutator, value: parseValue(json[2], `${path}[2]`) };
}

/** Inverse of {@link parseMutation}. */
export function emitMutation(m: Mutation): unknown {
  return [m.column, m.mutator, emitValue(m.value)];
}

/**
 * Whether applying the mutation twice leaves the same result as once:
 * set/map `insert` and `delete` are; arithmetic is not. The reconnect logic
 * uses this to decide whether an unacknowledged transaction may be replayed.
 */
export function isIdempotentMutator(mutator: Mutator): boolean {
  return mutator === 'insert' || mutator === 'delete';
}
