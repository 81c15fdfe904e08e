/**
 * What the printers share: reading loosely typed objects, column
 * definitions, NAME and AGE, and label selectors formatted as the API
 * server formats them (`app=web,tier in (a,b)`, `<none>` when empty).
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { PrinterColumn } from '../types.ts';
import { ageOf } from './age.ts';

export type Obj = Readonly<Record<string, unknown>>;
export const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
export const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
export const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const orNone = (s: string): string => (s === '' ? '<none>' : s);

/** A kind's printer: its columns, and one row's cells (same order). */
export interface Printer {
  readonly columns: readonly PrinterColumn[];
  cells(o: KubeObject, now: (() => number) | undefined): readonly unknown[];
}

export const col = (
  name: string,
  type: string,
  priority: number,
  description: string,
  format?: string,
): PrinterColumn => ({
  name,
  type,
  priority,
  description,
  ...(format ? { format } : {}),
});
export const NAME = col('Name', 'string', 0, 'Name must be unique within a namespace.', 'name');
export const AGE = col(
  'Age',
  'string',
  0,
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);
export const age = (o: KubeObject, now: (() => number) | undefined): string => ageOf(o.metadata.creationTimestamp, now);

/** NAME and AGE: what the API server prints for a kind without a printer of its own. */
export const GENERIC: Printer = {
  columns: [NAME, AGE],
  cells: (o, now) => [o.metadata.name, age(o, now)],
};

/** `k=v,...` sorted by key, or `<none>`. */
export function formatLabels(m: unknown): string {
  const pairs = Object.entries(obj(m))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${text(v)}`);
  return orNone(pairs.join(','));
}

/**
 * A LabelSelector as `metav1.FormatLabelSelector` prints it: requirements
 * sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`.
 *
 * @example formatSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }) // 'app=web,tier in (a,b)'
 */
export function formatSelector(sel: unknown): string {
  const s = obj(sel);
  const reqs: [string, string][] = Object.entries(obj(s.matchLabels)).map(([k, v]) => [k, `${k}=${text(v)}`]);
  for (const e of arr(s.matchExpressions).map(obj)) {
    const key = text(e.key);
    const values = arr(e.values).map(text).sort().join(',');
    const op = text(e.operator);
    const r =
      op === 'In'
        ? `${key} in (${values})`
        : op === 'NotIn'
          ? `${key} notin (${values})`
          : op === 'Exists'
            ? key
            : `!${key}`;
    reqs.push([key, r]);
  }
  reqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return orNone(reqs.map(([, r]) => r).join(','));
}

/** The containers' names and images of a pod template, comma-joined (the wide CONTAINERS and IMAGES). */
export function containersOf(template: unknown): [string, string] {
  const cs = arr(obj(obj(template).spec).containers).map(obj);
  return [cs.map((c) => text(c.name)).join(','), cs.map((c) => text(c.image)).join(',')];
}
