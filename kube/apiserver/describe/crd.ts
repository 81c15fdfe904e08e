/**
 * A CustomResourceDefinition (apiextensions.k8s.io/v1) read as the
 * resources it serves: one per served version, with that version's
 * `openAPIV3Schema` and printer columns. What is wrong with the CRD itself
 * is returned as field causes (the API server's 422), the fields named as
 * its validation names them (`spec.versions[0].schema.openAPIV3Schema`).
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { FieldCause, PrinterColumn, ServedResource } from '../types.ts';
import { SERVED_VERBS } from './builtins.ts';
import { structuralProblems } from './structural.ts';

/** What a CRD gives: its resources (empty when refused) and its problems. */
export interface CrdReading {
  readonly resources: readonly ServedResource[];
  readonly causes: readonly FieldCause[];
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): readonly string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const COLUMN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);

const required = (field: string): FieldCause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const invalid = (field: string, message: string): FieldCause => ({ reason: 'FieldValueInvalid', field, message });

interface Names {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

function readNames(spec: Obj, causes: FieldCause[]): Names | undefined {
  const n = isObj(spec.names) ? spec.names : {};
  const plural = str(n.plural);
  const kind = str(n.kind);
  if (!plural) causes.push(required('spec.names.plural'));
  else if (!DNS_LABEL.test(plural)) causes.push(invalid('spec.names.plural', `"${plural}": not a DNS-1035 label`));
  if (!kind) causes.push(required('spec.names.kind'));
  if (!plural || !kind) return undefined;
  return {
    plural,
    kind,
    singular: str(n.singular) ?? kind.toLowerCase(),
    listKind: str(n.listKind) ?? `${kind}List`,
    shortNames: strings(n.shortNames),
    categories: strings(n.categories),
  };
}

function readColumns(v: Obj, path: string, causes: FieldCause[]): readonly PrinterColumn[] {
  const cols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [];
  return cols.flatMap((c, i): PrinterColumn[] => {
    const at = `${path}.additionalPrinterColumns[${i}]`;
    if (!isObj(c)) return [];
    const name = str(c.name);
    const type = str(c.type);
    const jsonPath = str(c.jsonPath);
    if (!name) causes.push(required(`${at}.name`));
    if (!type || !COLUMN_TYPES.has(type)) causes.push(invalid(`${at}.type`, `"${type ?? ''}": not a column type`));
    if (!jsonPath) causes.push(required(`${at}.jsonPath`));
    if (!name || !type || !jsonPath) return [];
    return [
      {
        name,
        type,
        jsonPath,
        priority: typeof c.priority === 'number' ? c.priority : 0,
        ...(str(c.format) ? { format: str(c.format) } : {}),
        ...(str(c.description) ? { description: str(c.description) } : {}),
      },
    ];
  });
}

function checkSpec(crd: KubeObject, spec: Obj, names: Names | undefined, causes: FieldCause[]): string | undefined {
  const group = str(spec.group);
  if (!group) causes.push(required('spec.group'));
  else if (!group.includes('.'))
    causes.push(invalid('spec.group', `"${group}": should be a domain with at least one dot`));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: 'supported values: "Cluster", "Namespaced"',
    });
  }
  if (group && names && crd.metadata.name !== `${names.plural}.${group}`) {
    causes.push(invalid('metadata.name', `must be spec.names.plural+"."+spec.group ("${names.plural}.${group}")`));
  }
  return group;
}

function checkVersions(versions: readonly unknown[], causes: FieldCause[]): void {
  if (versions.length === 0) causes.push(required('spec.versions'));
  const storage = versions.filter((v) => isObj(v) && v.storage === true).length;
  if (versions.length > 0 && storage !== 1) {
    causes.push(invalid('spec.versions', `must have exactly one version marked as storage version (has ${storage})`));
  }
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!isObj(v)) return void causes.push(invalid(at, 'must be an object'));
    const name = str(v.name);
    if (!name) causes.push(required(`${at}.name`));
    else if (!VERSION.test(name)) causes.push(invalid(`${at}.name`, `"${name}": not a Kubernetes version`));
    const schema = isObj(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObj(schema)) causes.push(required(`${at}.schema.openAPIV3Schema`));
    else if (schema.type !== 'object') causes.push(invalid(`${at}.schema.openAPIV3Schema.type`, 'must be object'));
    else causes.push(...structuralProblems(schema, `${at}.schema.openAPIV3Schema`));
  });
}

/**
 * Reads a CRD: its served versions as resources, or, when anything is
 * wrong with it, no resources and every problem found.
 *
 * @example readCrd(subnetsCrd).resources[0].plural // 'subnets'
 */
export function readCrd(crd: KubeObject): CrdReading {
  const causes: FieldCause[] = [];
  const spec = isObj(crd.spec) ? crd.spec : {};
  const names = readNames(spec, causes);
  const group = checkSpec(crd, spec, names, causes);
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  checkVersions(versions, causes);
  const columns = versions.map((v, i) => (isObj(v) ? readColumns(v, `spec.versions[${i}]`, causes) : []));
  if (causes.length > 0 || !names || !group) return { resources: [], causes };
  const resources = versions.flatMap((raw, i): ServedResource[] => {
    const v = raw as Obj;
    if (v.served === false) return [];
    const sub = isObj(v.subresources) ? v.subresources : {};
    return [
      Object.freeze({
        group,
        version: v.name as string,
        ...names,
        namespaced: spec.scope === 'Namespaced',
        verbs: SERVED_VERBS,
        statusSubresource: isObj(sub.status),
        strategicMerge: false,
        origin: { crd: crd.metadata.name },
        schema: (v.schema as Obj).openAPIV3Schema,
        printerColumns: columns[i] ?? [],
      }),
    ];
  });
  return { resources, causes };
}
