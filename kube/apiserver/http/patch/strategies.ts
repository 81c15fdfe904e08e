/**
 * The patch strategies of a built-in kind, as the served /openapi/v2 states
 * them on its fields (`x-kubernetes-patch-strategy`: `merge`, `retainKeys`,
 * `merge,retainKeys`; `x-kubernetes-patch-merge-key`): the same document
 * kubectl reads to compute the strategic merge patches it sends, so client
 * and server agree on how every list merges. A list with a merge key is
 * merged element by element, a list of scalars with `merge` is a set, every
 * other list is replaced.
 */
import { isPlainObject } from '../../../cluster/json.ts';

/** How a field is patched; no strategy (undefined) means a list is replaced as a whole. */
export interface FieldStrategy {
  /** Merge a list of objects by this key. */
  readonly mergeKey?: string;
  /** Merge a list of scalars as a set (`finalizers`). */
  readonly set?: boolean;
  /** The field honours `$retainKeys` (a union: the keys not named are cleared). */
  readonly retainKeys?: boolean;
}

/** The strategy of the field at a path of keys (list indexes left out), for one kind. */
export type StrategyLookup = (path: readonly string[]) => FieldStrategy | undefined;

/** No strategies: every list is replaced (a kind the document does not describe). */
export const NO_STRATEGIES: StrategyLookup = () => undefined;

type Schema = Record<string, unknown>;

/**
 * The lookup of the kind `gvk` in an OpenAPI v2 document: its definition is
 * the one tagged `x-kubernetes-group-version-kind` with it; undefined when
 * none is.
 *
 * @example strategiesFromOpenApi(doc, { group: '', version: 'v1', kind: 'Pod' })?.(['spec', 'containers']) // { mergeKey: 'name' }
 */
export function strategiesFromOpenApi(
  doc: unknown,
  gvk: { readonly group: string; readonly version: string; readonly kind: string },
): StrategyLookup | undefined {
  const definitions = isPlainObject(doc) && isPlainObject(doc['definitions']) ? doc['definitions'] : {};
  const root = Object.values(definitions).find(
    (d) =>
      isPlainObject(d) &&
      Array.isArray(d['x-kubernetes-group-version-kind']) &&
      d['x-kubernetes-group-version-kind'].some(
        (t: unknown) =>
          isPlainObject(t) && t['group'] === gvk.group && t['version'] === gvk.version && t['kind'] === gvk.kind,
      ),
  );
  if (!isPlainObject(root)) return undefined;
  const memo = new Map<string, FieldStrategy | undefined>();
  return (path) => {
    const key = path.join('\u0000');
    if (!memo.has(key)) memo.set(key, strategyAt(definitions, root, path));
    return memo.get(key);
  };
}

function strategyAt(definitions: Schema, root: Schema, path: readonly string[]): FieldStrategy | undefined {
  let node: Schema | undefined = root;
  for (const step of path) {
    let at = deref(definitions, node);
    if (at?.['type'] === 'array') at = deref(definitions, at['items']);
    const props = at?.['properties'];
    const next = isPlainObject(props) ? props[step] : undefined;
    if (!isPlainObject(next)) return undefined;
    node = next;
  }
  return parseStrategy(node?.['x-kubernetes-patch-strategy'], node?.['x-kubernetes-patch-merge-key']);
}

/** A `$ref` to `#/definitions/<name>` followed (the extensions sit beside the `$ref`, read before this). */
function deref(definitions: Schema, node: unknown): Schema | undefined {
  if (!isPlainObject(node)) return undefined;
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const target = definitions[ref.replace(/^#\/definitions\//, '')];
  return isPlainObject(target) ? target : undefined;
}

function parseStrategy(strategy: unknown, mergeKey: unknown): FieldStrategy | undefined {
  if (typeof strategy !== 'string') return undefined;
  const parts = strategy.split(',').map((s) => s.trim());
  const merge = parts.includes('merge');
  const retainKeys = parts.includes('retainKeys');
  if (!merge && !retainKeys) return undefined;
  return {
    ...(merge && typeof mergeKey === 'string' ? { mergeKey } : {}),
    ...(merge && typeof mergeKey !== 'string' ? { set: true } : {}),
    ...(retainKeys ? { retainKeys: true } : {}),
  };
}
