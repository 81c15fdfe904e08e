/**
 * Label and field selectors as the API server parses and applies them
 * (`labelSelector`, `fieldSelector` of a list or watch): label selectors in
 * the full syntax (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`,
 * `!a`, `a>1`, `a<1`), field selectors with `=`, `==`, `!=` over the fields
 * the server supports for the kind (every kind: `metadata.name` and
 * `metadata.namespace`; Pod: `spec.nodeName`, `status.phase`, ...). A field
 * the kind does not support is a problem, as the server's 400 "field label
 * not supported": a source that cannot apply a selector refuses it.
 */
import { labelValue, type RequirementOperator, requirementHolds } from './requirement.ts';
import type { KubeObject, ListOptions } from './types.ts';

/** Why a selector was refused: the query parameter and the message the server gives. */
export interface SelectorProblem {
  readonly code: 'InvalidLabelSelector' | 'InvalidFieldSelector' | 'UnsupportedField';
  readonly path: 'labelSelector' | 'fieldSelector';
  readonly message: string;
}

/** Whether an object is in a list's or watch's scope. */
export type ObjectFilter = (o: KubeObject) => boolean;

export type SelectorResult =
  | { readonly ok: true; readonly filter: ObjectFilter | undefined }
  | { readonly ok: false; readonly problem: SelectorProblem };

type Str = (o: KubeObject) => string;
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const at =
  (...steps: string[]): Str =>
  (o) => {
    let x: unknown = o;
    for (const s of steps) x = x !== null && typeof x === 'object' ? (x as Record<string, unknown>)[s] : undefined;
    return str(x);
  };

/** The fields each kind can be selected by, beyond metadata.name and metadata.namespace (the API server's field label conversions). */
const KIND_FIELDS: Readonly<Record<string, Readonly<Record<string, Str>>>> = {
  Pod: {
    'spec.nodeName': at('spec', 'nodeName'),
    'spec.restartPolicy': at('spec', 'restartPolicy'),
    'spec.schedulerName': at('spec', 'schedulerName'),
    'spec.serviceAccountName': at('spec', 'serviceAccountName'),
    'spec.hostNetwork': (o) => str((o.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork ?? false),
    'status.phase': at('status', 'phase'),
    'status.podIP': at('status', 'podIP'),
    'status.nominatedNodeName': at('status', 'nominatedNodeName'),
  },
  Event: Object.fromEntries([
    ...['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((f) => [
      `involvedObject.${f}`,
      at('involvedObject', f),
    ]),
    ['reason', at('reason')],
    ['reportingComponent', at('reportingComponent')],
    ['source', at('source', 'component')],
    ['type', at('type')],
  ]),
  Namespace: { 'status.phase': at('status', 'phase') },
  Node: {
    'spec.unschedulable': (o) => str((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable ?? false),
  },
  Secret: { type: at('type') },
  ReplicaSet: { 'status.replicas': at('status', 'replicas') },
  Job: { 'status.successful': at('status', 'successful') },
};

const COMMON_FIELDS: Readonly<Record<string, Str>> = {
  'metadata.name': at('metadata', 'name'),
  'metadata.namespace': at('metadata', 'namespace'),
};

/**
 * One filter for a list's or watch's scope: namespace, label selector and
 * field selector together; `filter` undefined when nothing narrows it.
 *
 * @example compileSelectors('Pod', { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app in (web)' })
 */
export function compileSelectors(kind: string, opts: ListOptions): SelectorResult {
  const filters: ObjectFilter[] = [];
  if (opts.namespace !== undefined) {
    const ns = opts.namespace;
    filters.push((o) => o.metadata.namespace === ns);
  }
  if (opts.labelSelector !== undefined && opts.labelSelector.trim() !== '') {
    const r = parseLabelSelector(opts.labelSelector);
    if (!r.ok) return r;
    if (r.filter) filters.push(r.filter);
  }
  if (opts.fieldSelector !== undefined && opts.fieldSelector.trim() !== '') {
    const r = parseFieldSelector(kind, opts.fieldSelector);
    if (!r.ok) return r;
    if (r.filter) filters.push(r.filter);
  }
  if (filters.length === 0) return { ok: true, filter: undefined };
  if (filters.length === 1) return { ok: true, filter: filters[0] };
  return { ok: true, filter: (o) => filters.every((f) => f(o)) };
}

/**
 * A field selector of `kind`: `f=v`, `f==v`, `f!=v` joined by commas (`\,`,
 * `\=` and `\\` escape); an absent field is the empty string, as the server
 * has it (`spec.nodeName=` selects unscheduled pods).
 *
 * @example parseFieldSelector('Pod', 'spec.nodeName=node-1,status.phase!=Failed')
 */
export function parseFieldSelector(kind: string, text: string): SelectorResult {
  const bad = (code: SelectorProblem['code'], message: string): SelectorResult => ({
    ok: false,
    problem: { code, path: 'fieldSelector', message },
  });
  const tests: ObjectFilter[] = [];
  for (const part of splitUnescaped(text, ',')) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (term === undefined)
      return bad('InvalidFieldSelector', `invalid selector: '${text}'; can't understand '${part}'`);
    const { field, op, value } = term;
    const get = COMMON_FIELDS[field] ?? KIND_FIELDS[kind]?.[field];
    if (get === undefined)
      return bad(
        'UnsupportedField',
        `field label not supported: ${field} (${kind} can be selected by ${supported(kind)})`,
      );
    tests.push(op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value);
  }
  return { ok: true, filter: tests.length === 0 ? undefined : (o) => tests.every((t) => t(o)) };
}

const supported = (kind: string) => [...Object.keys(COMMON_FIELDS), ...Object.keys(KIND_FIELDS[kind] ?? {})].join(', ');

/** Splits at `sep` not preceded by a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      cur += c + text[++i];
    } else if (c === sep) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** `field op value` at the first unescaped operator, the value unescaped; undefined without an operator. */
function splitTerm(part: string): { field: string; op: string; value: string } | undefined {
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    const op = part.startsWith('!=', i) ? '!=' : part.startsWith('==', i) ? '==' : c === '=' ? '=' : undefined;
    if (op !== undefined)
      return { field: part.slice(0, i), op, value: part.slice(i + op.length).replace(/\\(.)/g, '$1') };
  }
  return undefined;
}

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * A label selector.
 *
 * @example parseLabelSelector('app=web,tier in (a,b),!legacy')
 */
export function parseLabelSelector(text: string): SelectorResult {
  const tests: ObjectFilter[] = [];
  for (const req of splitRequirements(text)) {
    const r = requirement(req.trim());
    if (typeof r === 'string')
      return { ok: false, problem: { code: 'InvalidLabelSelector', path: 'labelSelector', message: r } };
    tests.push(r);
  }
  return { ok: true, filter: tests.length === 0 ? undefined : (o) => tests.every((t) => t(o)) };
}

/** Commas outside parentheses separate requirements. */
function splitRequirements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out.filter((s) => s.trim() !== '');
}

interface LabelRequirement {
  readonly key: string;
  readonly operator: RequirementOperator;
  readonly values: readonly string[];
}

/** One requirement as a filter (evaluated as node affinity's are: requirement.ts), or why it is not one. */
function requirement(r: string): ObjectFilter | string {
  const req = parseRequirement(r);
  if (typeof req === 'string') return req;
  return (o) => requirementHolds(req.operator, req.values, labelValue(o.metadata.labels ?? {}, req.key));
}

/** The syntax: `!key`, `key in (..)`, `key notin (..)`, `key=v`, `key==v`, `key!=v`, `key<n`, `key>n`, `key`. */
function parseRequirement(r: string): LabelRequirement | string {
  const badKey = (k: string) =>
    `invalid label key "${k}": a label key is a name, optionally prefixed by a DNS subdomain`;
  const badValue = (v: string) =>
    `invalid label value "${v}": at most 63 characters of [A-Za-z0-9_.-], alphanumeric at both ends`;
  const checkValue = (v: string) => (VALUE.test(v) && v.length <= 63 ? undefined : badValue(v));
  let m = /^!\s*(\S+)$/.exec(r);
  if (m) return KEY.test(m[1]!) ? { key: m[1]!, operator: 'DoesNotExist', values: [] } : badKey(m[1]!);
  m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(r);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    if (!KEY.test(key)) return badKey(key);
    const values = list.split(',').map((v) => v.trim());
    const wrong = values.map(checkValue).find((x) => x !== undefined);
    if (wrong !== undefined) return wrong;
    return { key, operator: op === 'in' ? 'In' : 'NotIn', values };
  }
  m = /^([^=!<>\s]+)\s*(==|!=|=|<|>)\s*(\S*)$/.exec(r);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    if (!KEY.test(key)) return badKey(key);
    if (op === '<' || op === '>') {
      if (!/^-?\d+$/.test(value)) return `invalid selector "${r}": ${op} takes an integer`;
      return { key, operator: op === '<' ? 'Lt' : 'Gt', values: [value] };
    }
    const wrong = checkValue(value);
    if (wrong !== undefined) return wrong;
    return { key, operator: op === '!=' ? 'NotIn' : 'In', values: [value] };
  }
  if (KEY.test(r)) return { key: r, operator: 'Exists', values: [] };
  return `unable to parse requirement: "${r}"`;
}
