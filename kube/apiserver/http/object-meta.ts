/**
 * ObjectMeta, the part of every object that is the server's: its fields
 * are never a schema's to prune, and their types are checked as the API
 * server's decoder checks them (a label that is a number, finalizers that
 * are not a list of strings: 400 BadRequest, as a body that does not decode
 * into metav1.ObjectMeta), so no object the cluster stores has a metadata
 * its readers cannot take.
 */
import { isPlainObject } from '../../cluster/json.ts';
import { fieldSteps } from './fields.ts';

type Check = (v: unknown) => boolean;

const str: Check = (v) => typeof v === 'string';
const int: Check = (v) => typeof v === 'number' && Number.isInteger(v);
const strMap: Check = (v) => isPlainObject(v) && Object.values(v).every(str);
const list =
  (each: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(each);
const ownerRef: Check = (v) =>
  isPlainObject(v) &&
  ['apiVersion', 'kind', 'name', 'uid'].every((k) => str(v[k])) &&
  ['controller', 'blockOwnerDeletion'].every((k) => v[k] === undefined || typeof v[k] === 'boolean');

/** metav1.ObjectMeta's fields (JSON names) and the type each decodes from. */
const OBJECT_META: Readonly<Record<string, Check>> = {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: str,
  resourceVersion: str,
  generation: int,
  creationTimestamp: str,
  deletionTimestamp: str,
  deletionGracePeriodSeconds: int,
  labels: strMap,
  annotations: strMap,
  ownerReferences: list(ownerRef),
  finalizers: list(str),
  managedFields: list(isPlainObject),
};

/** Whether `key` is an ObjectMeta field. */
export const isObjectMetaField = (key: string): boolean => Object.hasOwn(OBJECT_META, key);

/**
 * The first ObjectMeta field whose value does not decode (null counts as
 * absent, as in Go), or undefined.
 *
 * @example metaTypeProblem({ name: 'a', labels: { x: 1 } }) // 'metadata.labels: expected ...'
 */
export function metaTypeProblem(meta: Readonly<Record<string, unknown>>): string | undefined {
  for (const [k, v] of Object.entries(meta)) {
    const check = OBJECT_META[k];
    if (check === undefined || v === null || v === undefined || check(v)) continue;
    return `metadata.${k}: ${JSON.stringify(v).slice(0, 80)} does not decode as ${EXPECTED[k] ?? 'its type'}`;
  }
  return undefined;
}

const EXPECTED: Readonly<Record<string, string>> = {
  generation: 'an integer',
  deletionGracePeriodSeconds: 'an integer',
  labels: 'a map of strings',
  annotations: 'a map of strings',
  ownerReferences: 'a list of owner references (apiVersion, kind, name, uid)',
  finalizers: 'a list of strings',
  managedFields: 'a list of objects',
};

/**
 * `apiVersion`, `kind`, `metadata` and every ObjectMeta field (with what is
 * inside it): fields a validator's "unknown" never removes.
 *
 * @example isServerField('metadata.labels.app') // true
 */
export function isServerField(field: string): boolean {
  const [first, second] = fieldSteps(field);
  if (first === 'apiVersion' || first === 'kind') return second === undefined;
  if (first !== 'metadata') return false;
  return second === undefined || isObjectMetaField(String(second));
}
