/**
 * What every typed view shares: object metadata, L4 protocols and label
 * selectors, decoded with their issues (decode.ts).
 */
import type { KubeObject } from '../cluster/types.ts';
import type { DecodeIssue, Plain, Reader } from './decode.ts';

export interface Decoded<T> {
  readonly value: T;
  readonly issues: readonly DecodeIssue[];
}

export interface Meta {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly deleting: boolean;
  readonly finalizers: readonly string[];
  readonly ownerReferences: readonly { readonly kind: string; readonly name: string }[];
}

export function meta(o: KubeObject, r: Reader): Meta {
  const m = o.metadata as unknown as Plain;
  return {
    name: o.metadata.name,
    namespace: o.metadata.namespace ?? '',
    uid: o.metadata.uid ?? '',
    labels: r.strMap(m, 'labels', 'metadata'),
    annotations: r.strMap(m, 'annotations', 'metadata'),
    deleting: o.metadata.deletionTimestamp !== undefined,
    finalizers: r.strs(m, 'finalizers', 'metadata') ?? [],
    ownerReferences: r
      .objs(m, 'ownerReferences', 'metadata')
      .map(({ at, value }) => ({ kind: r.str(value, 'kind', at) ?? '', name: r.str(value, 'name', at) ?? '' })),
  };
}

export const objName = (o: KubeObject) =>
  `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

export type L4Protocol = 'TCP' | 'UDP' | 'SCTP';
const L4: readonly string[] = ['TCP', 'UDP', 'SCTP'];

export function protocol(r: Reader, o: Plain, path: string): L4Protocol {
  const p = r.str(o, 'protocol', path) ?? 'TCP';
  if (L4.includes(p)) return p as L4Protocol;
  r.issue('invalid-value', `${path}.protocol`, `${path}.protocol must be TCP, UDP or SCTP, got ${JSON.stringify(p)}`);
  return 'TCP';
}

export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values: readonly string[];
  }[];
}

const OPERATORS: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

export function selector(r: Reader, o: Plain | undefined, k: string, path: string): LabelSelector | undefined {
  const s = r.obj(o, k, path);
  return s === undefined ? undefined : selectorOf(r, s, path === '' ? k : `${path}.${k}`);
}

export function selectorOf(r: Reader, s: Plain, at: string): LabelSelector {
  const matchExpressions = r.objs(s, 'matchExpressions', at).flatMap((e) => {
    const operator = r.str(e.value, 'operator', e.at) ?? '';
    const key = r.str(e.value, 'key', e.at) ?? '';
    if (!OPERATORS.includes(operator)) {
      r.issue(
        'invalid-value',
        `${e.at}.operator`,
        `${e.at}.operator ${JSON.stringify(operator)} is not a selector operator`,
      );
      return [];
    }
    return [
      {
        key,
        operator: operator as LabelSelector['matchExpressions'][number]['operator'],
        values: r.strs(e.value, 'values', e.at) ?? [],
      },
    ];
  });
  return { matchLabels: r.strMap(s, 'matchLabels', at), matchExpressions };
}

/** Kubernetes label selector semantics; an absent selector selects nothing, an empty one everything. */
export function selects(sel: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (sel === undefined) return false;
  // No entries(): this runs for every pod against every policy peer, and the pairs were most of the storm's garbage.
  const m = sel.matchLabels;
  for (const k in m) if (Object.hasOwn(m, k) && labels[k] !== m[k]) return false;
  for (const e of sel.matchExpressions) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && e.values.includes(labels[e.key]!);
    const ok =
      e.operator === 'In' ? inValues : e.operator === 'NotIn' ? !inValues : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}
