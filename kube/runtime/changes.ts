/**
 * What changed between two versions of an object, for deciding which
 * informer events are worth a reconcile: by `metadata.generation` where the
 * object has one (the API server bumps it on spec changes only), by
 * `resourceVersion` otherwise, and field by field for the few fields a
 * handler reads outside its spec (labels, deletion, finalizers). Nothing
 * here serializes an object: these run on every event of every kind.
 */
import type { KubeObject } from '../cluster/types.ts';

/** Whether `o` differs from `old` in what a predicate looks at; `old` undefined: a new object (always changed). */
export type ChangePredicate = (o: KubeObject, old: KubeObject | undefined) => boolean;

/**
 * The spec changed: by generation when both versions carry one, else by
 * resourceVersion (any change, as nothing finer is known).
 *
 * @example specChanged(next, prev) // false after a label or status change
 */
export const specChanged: ChangePredicate = (o, old) => {
  if (old === undefined) return true;
  const g = o.metadata.generation;
  const h = old.metadata.generation;
  if (g !== undefined && h !== undefined) return g !== h;
  return o.metadata.resourceVersion !== old.metadata.resourceVersion || o.metadata.resourceVersion === undefined;
};

/** Two string maps with the same entries (labels, annotations). */
export function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  if (a === b) return true;
  const ka = a === undefined ? [] : Object.keys(a);
  const kb = b === undefined ? [] : Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (a![k] !== b?.[k]) return false;
  return true;
}

/** Two string lists equal in order (finalizers). */
export function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  const la = a ?? [];
  const lb = b ?? [];
  return la.length === lb.length && la.every((v, i) => v === lb[i]);
}

/** @example labelsChanged(pod, old) // true when a label was added, removed or changed */
export const labelsChanged: ChangePredicate = (o, old) =>
  old === undefined || !sameStringMap(o.metadata.labels, old.metadata.labels);

/** Deletion asked, or the finalizers holding it changed. */
export const deletionChanged: ChangePredicate = (o, old) =>
  old === undefined ||
  o.metadata.deletionTimestamp !== old.metadata.deletionTimestamp ||
  !sameStrings(o.metadata.finalizers, old.metadata.finalizers);

/**
 * Any of the predicates.
 *
 * @example const relevant = anyOf(specChanged, labelsChanged, deletionChanged);
 */
export const anyOf =
  (...ps: readonly ChangePredicate[]): ChangePredicate =>
  (o, old) =>
    ps.some((p) => p(o, old));

/** What an object's own handler acts on: its spec, labels and deletion (not its status or annotations). */
export const specLabelsOrDeletion: ChangePredicate = anyOf(specChanged, labelsChanged, deletionChanged);
