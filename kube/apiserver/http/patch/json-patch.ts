/**
 * RFC 6902 JSON Patch (`application/json-patch+json`, `kubectl patch
 * --type json`): add, remove, replace, move, copy and test over RFC 6901
 * JSON pointers (`~1` for `/`, `~0` for `~`, `-` for the end of an array).
 * The operations apply in order to a copy; the first one that cannot apply
 * stops the patch with a typed problem naming the operation and its path.
 */
import { isPlainObject, jsonEqual } from '../../../cluster/json.ts';

/** Why a JSON patch did not apply: `malformed` (not an RFC 6902 document) or `failed` (an operation could not apply). */
export interface JsonPatchProblem {
  readonly code: 'malformed' | 'failed';
  /** The operation's index in the patch. */
  readonly index: number;
  readonly path: string;
  readonly message: string;
}

export type JsonPatchResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: JsonPatchProblem };

interface Op {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

class Stop {
  constructor(readonly problem: JsonPatchProblem) {}
}

/**
 * `patch` applied to a copy of `doc`.
 *
 * @example
 * applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/-', value: 2 }]) // { ok: true, value: { a: [1, 2] } }
 */
export function applyJsonPatch(doc: unknown, patch: unknown): JsonPatchResult {
  if (!Array.isArray(patch))
    return { ok: false, problem: { code: 'malformed', index: -1, path: '', message: 'a JSON patch is an array' } };
  let out = structuredClone(doc);
  try {
    for (const [index, raw] of patch.entries()) out = applyOp(out, checkOp(raw, index), index);
  } catch (e) {
    if (e instanceof Stop) return { ok: false, problem: e.problem };
    throw e;
  }
  return { ok: true, value: out };
}

function checkOp(raw: unknown, index: number): Op {
  const bad = (message: string, path = '') => new Stop({ code: 'malformed', index, path, message });
  if (!isPlainObject(raw)) throw bad('an operation is an object');
  const { op, path, from } = raw;
  if (typeof op !== 'string') throw bad('op: required');
  if (typeof path !== 'string') throw bad('path: required');
  if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op)) throw bad(`op: unknown "${op}"`, path);
  if ((op === 'move' || op === 'copy') && typeof from !== 'string') throw bad('from: required', path);
  if ((op === 'add' || op === 'replace' || op === 'test') && !Object.hasOwn(raw, 'value'))
    throw bad('value: required', path);
  return raw as unknown as Op;
}

function pointer(path: string, index: number): string[] {
  if (path === '') return [];
  if (!path.startsWith('/'))
    throw new Stop({ code: 'malformed', index, path, message: 'a JSON pointer starts with "/"' });
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyOp(doc: unknown, op: Op, index: number): unknown {
  const fail = (message: string) => new Stop({ code: 'failed', index, path: op.path, message });
  const steps = pointer(op.path, index);
  switch (op.op) {
    case 'add':
      return put(doc, steps, structuredClone(op.value), 'add', fail);
    case 'replace':
      get(doc, steps, fail);
      return put(doc, steps, structuredClone(op.value), 'replace', fail);
    case 'remove':
      return remove(doc, steps, fail);
    case 'test':
      if (!jsonEqual(get(doc, steps, fail), op.value)) throw fail('test failed: the value differs');
      return doc;
    case 'copy':
      return put(doc, steps, structuredClone(get(doc, pointer(op.from!, index), fail)), 'add', fail);
    default: {
      const from = pointer(op.from!, index);
      if (steps.length > from.length && from.every((s, i) => steps[i] === s))
        throw fail(`move: "${op.from}" cannot move into itself`);
      const v = get(doc, from, fail);
      return put(remove(doc, from, fail), steps, v, 'add', fail);
    }
  }
}

const arrayIndex = (arr: unknown[], step: string, allowEnd: boolean): number | undefined => {
  if (allowEnd && step === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(step)) return undefined;
  const i = Number(step);
  return i < arr.length || (allowEnd && i === arr.length) ? i : undefined;
};

function get(doc: unknown, steps: readonly string[], fail: (m: string) => Stop): unknown {
  let at = doc;
  for (const step of steps) {
    if (Array.isArray(at)) {
      const i = arrayIndex(at, step, false);
      if (i === undefined) throw fail(`no element ${step}`);
      at = at[i];
    } else if (isPlainObject(at) && Object.hasOwn(at, step)) at = at[step];
    else throw fail(`no member "${step}"`);
  }
  return at;
}

function put(
  doc: unknown,
  steps: readonly string[],
  value: unknown,
  mode: 'add' | 'replace',
  fail: (m: string) => Stop,
): unknown {
  if (steps.length === 0) return value;
  const parent = get(doc, steps.slice(0, -1), fail);
  const last = steps[steps.length - 1]!;
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, mode === 'add');
    if (i === undefined) throw fail(`no element ${last}`);
    if (mode === 'add') parent.splice(i, 0, value);
    else parent[i] = value;
  } else if (isPlainObject(parent)) parent[last] = value;
  else throw fail('the parent is not an object or an array');
  return doc;
}

function remove(doc: unknown, steps: readonly string[], fail: (m: string) => Stop): unknown {
  if (steps.length === 0) throw fail('the whole document cannot be removed');
  const parent = get(doc, steps.slice(0, -1), fail);
  const last = steps[steps.length - 1]!;
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, false);
    if (i === undefined) throw fail(`no element ${last}`);
    parent.splice(i, 1);
  } else if (isPlainObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw fail(`no member "${last}"`);
  return doc;
}
