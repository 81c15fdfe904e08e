/**
 * A CustomResourceDefinition's status as the API server writes it once it
 * has read the CRD: `NamesAccepted` and `Established` conditions (what
 * `kubectl wait --for condition=established` waits for), `acceptedNames`
 * and `storedVersions`. A refused CRD is not established, the condition's
 * message says why. Conditions keep their lastTransitionTime while their
 * status does not change, so writing the status again changes nothing.
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { FieldCause } from '../types.ts';

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
}

function conditions(causes: readonly FieldCause[]): Condition[] {
  if (causes.length === 0) {
    return [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ];
  }
  const why = causes.map((c) => `${c.field}: ${c.message}`).join('; ');
  const names = causes.some((c) => c.field.startsWith('spec.names'));
  return [
    names
      ? { type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: why }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
    { type: 'Established', status: 'False', reason: 'NotAccepted', message: why },
  ];
}

/**
 * The status the CRD should have, or undefined when it has it already.
 *
 * @example crdStatusUpdate(crd, [], '2026-01-01T00:00:00Z')?.conditions[1].type // 'Established'
 */
export function crdStatusUpdate(crd: KubeObject, causes: readonly FieldCause[], now?: string): Obj | undefined {
  const current = obj(crd.status);
  const before = Array.isArray(current.conditions) ? (current.conditions as Condition[]) : [];
  const next = conditions(causes).map((c): Condition => {
    const old = before.find((b) => b.type === c.type);
    const since = old && old.status === c.status ? old.lastTransitionTime : now;
    return since ? { ...c, lastTransitionTime: since } : c;
  });
  const spec = obj(crd.spec);
  const storage = (Array.isArray(spec.versions) ? spec.versions : []).map(obj).find((v) => v.storage === true);
  const stored = Array.isArray(current.storedVersions) ? (current.storedVersions as string[]) : [];
  const version = typeof storage?.name === 'string' ? storage.name : undefined;
  const status = {
    conditions: next,
    // Never accepted: the API server's zero value, which clients that require plural and kind can read.
    acceptedNames: causes.length === 0 ? obj(spec.names) : { plural: '', kind: '', ...obj(current.acceptedNames) },
    storedVersions: version && !stored.includes(version) ? [...stored, version] : stored,
  };
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  const unchanged =
    same(before, next) &&
    same(current.acceptedNames ?? {}, status.acceptedNames) &&
    same(stored, status.storedVersions);
  return unchanged ? undefined : status;
}
