/**
 * A small stand-in for the description side, for the HTTP side's own
 * tests: the description side's built-in resources, no discovery, a NAME
 * column Table, and a validator that reports only fields named in
 * `unknownFields` (as FieldValueUnknown) and `invalidFields` (as
 * FieldValueInvalid) when present, so the tests can drive each path.
 */
import type { KubeObject } from '../../../cluster/types.ts';
import type { ApiDescription, Catalog, FieldCause, ServedResource } from '../../types.ts';
import { builtinResources } from '../../describe/builtins.ts';
import { BUILTIN_DEFINITIONS } from '../../describe/openapi/builtin.gen.ts';
import { fieldSteps } from '../fields.ts';

/** The served resources: the description side's own built-in list (kube/apiserver/describe/builtins.ts). */
export function testResources(): ServedResource[] {
  return [...builtinResources()];
}

export interface TestDescriptionOptions {
  /** Field paths reported as unknown when the object has them. */
  readonly unknownFields?: readonly string[];
  /** Field paths reported as invalid when the object has them. */
  readonly invalidFields?: readonly string[];
}

const has = (obj: unknown, path: string): boolean => {
  let at: unknown = obj;
  for (const s of fieldSteps(path)) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, s)) return false;
    at = (at as Record<string | number, unknown>)[s];
  }
  return true;
};

export function testDescription(opts: TestDescriptionOptions = {}): ApiDescription {
  const all = testResources();
  const catalog: Catalog = {
    all: () => all,
    byPath: (g, v, p) => all.find((r) => r.group === g && r.version === v && r.plural === p),
    byKind: (av, k) => all.find((r) => (r.group === '' ? r.version : `${r.group}/${r.version}`) === av && r.kind === k),
    registerCrd: () => [],
    unregisterCrd: () => {},
    onChange: () => () => {},
  };
  return {
    catalog,
    discovery: (path) =>
      path === '/openapi/v2' ? { status: 200, body: { swagger: '2.0', definitions: BUILTIN_DEFINITIONS } } : undefined,
    table: (_r, objects: readonly KubeObject[], o) => ({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: o.resourceVersion },
      columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: '', priority: 0 }],
      rows: objects.map((x) => ({ cells: [x.metadata.name], object: { metadata: x.metadata } })),
    }),
    validate: (_r, obj): FieldCause[] => [
      ...(opts.unknownFields ?? [])
        .filter((f) => has(obj, f))
        .map((field) => ({ reason: 'FieldValueUnknown', field, message: 'field not declared in schema' })),
      ...(opts.invalidFields ?? [])
        .filter((f) => has(obj, f))
        .map((field) => ({ reason: 'FieldValueInvalid', field, message: 'Invalid value' })),
    ],
  };
}
