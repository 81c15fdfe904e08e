/**
 * Unknown fields, as an API server with `fieldValidation=Warn` treats them:
 * the description side names each (a FieldValueUnknown cause with its path,
 * `spec.foo` or `spec.ports[0].bogus`), the HTTP side removes it from the
 * object before it is stored and tells the client in a Warning header.
 */
import { isPlainObject } from '../../cluster/json.ts';
import type { KubeObject } from '../../cluster/types.ts';

/**
 * The steps of a field path: `spec.ports[0].name` → `['spec', 'ports', 0, 'name']`.
 *
 * @example fieldSteps('spec.ports[0].name') // ['spec', 'ports', 0, 'name']
 */
export function fieldSteps(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(m[1]!);
  }
  return steps;
}

/**
 * A copy of `obj` without the fields at `paths` (paths that lead nowhere are
 * skipped: the field is not there to store).
 *
 * @example withoutFields(pod, ['spec.bogus']).spec // the spec without `bogus`
 */
export function withoutFields(obj: KubeObject, paths: readonly string[]): KubeObject {
  if (paths.length === 0) return obj;
  const copy = structuredClone(obj) as Record<string, unknown>;
  for (const p of paths) removeAt(copy, fieldSteps(p));
  return copy as KubeObject;
}

function removeAt(root: unknown, steps: readonly (string | number)[]): void {
  let at: unknown = root;
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    if (Array.isArray(at)) {
      const idx = typeof step === 'number' ? step : /^\d+$/.test(step) ? Number(step) : -1;
      if (idx < 0 || idx >= at.length) return;
      if (last) return; // an unknown field is a key, never an element
      at = at[idx];
    } else if (isPlainObject(at)) {
      const key = String(step);
      if (!Object.hasOwn(at, key)) return;
      if (last) {
        delete at[key];
        return;
      }
      at = at[key];
    } else return;
  }
}
