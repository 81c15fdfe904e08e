/**
 * Validation of objects against their resource's schema. Not written yet:
 * until it is, no object is refused here (the HTTP side still stores only
 * what the cluster accepts).
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { FieldCause, ServedResource } from '../types.ts';

/** Nothing checked yet (see the header). */
export function validateObject(_r: ServedResource, _o: KubeObject): readonly FieldCause[] {
  return [];
}
