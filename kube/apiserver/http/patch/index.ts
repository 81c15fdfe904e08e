/**
 * patch/: the three patch types of the Kubernetes API, chosen by the
 * request's Content-Type: JSON merge (RFC 7386), JSON patch (RFC 6902) and
 * strategic merge (built-in kinds only, as the API server: a CRD refuses it
 * with 415). `patchedObject` computes the object a patch asks for; the
 * handler checks and stores it.
 */
import { mergePatch } from '../../../cluster/json.ts';
import { ApiError } from '../status.ts';
import { applyJsonPatch } from './json-patch.ts';
import { StrategicPatchError, strategicMerge } from './strategic.ts';
import type { StrategyLookup } from './strategies.ts';

export { applyJsonPatch, type JsonPatchProblem, type JsonPatchResult } from './json-patch.ts';
export { StrategicPatchError, strategicMerge } from './strategic.ts';
export {
  type FieldStrategy,
  NO_STRATEGIES,
  type StrategyLookup,
  strategiesFromOpenApi,
} from './strategies.ts';

export const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

/**
 * `current` with `patch` applied as `mediaType` says.
 *
 * @example patchedObject(PATCH_TYPES.merge, { a: 1 }, { b: 2 }, { strategic: false }) // { a: 1, b: 2 }
 */
export function patchedObject(
  mediaType: string,
  current: unknown,
  patch: unknown,
  opts: {
    readonly strategic: boolean;
    /** The kind's patch strategies (strategic merge only). */
    readonly strategies?: () => StrategyLookup;
  },
): unknown {
  switch (mediaType) {
    case PATCH_TYPES.merge:
      return mergePatch(current, patch);
    case PATCH_TYPES.json: {
      const r = applyJsonPatch(current, patch);
      if (r.ok) return r.value;
      const where = `operation ${r.problem.index}${r.problem.path ? ` (${r.problem.path})` : ''}`;
      if (r.problem.code === 'malformed')
        throw new ApiError('BadRequest', `the JSON patch is malformed: ${where}: ${r.problem.message}`);
      throw new ApiError('Invalid', `the JSON patch does not apply: ${where}: ${r.problem.message}`);
    }
    case PATCH_TYPES.strategic:
      if (!opts.strategic)
        throw new ApiError(
          'UnsupportedMediaType',
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
        );
      try {
        return strategicMerge(current, patch, opts.strategies?.());
      } catch (err) {
        if (err instanceof StrategicPatchError)
          throw new ApiError('BadRequest', `the strategic merge patch is malformed: ${err.message}`, undefined, {
            cause: err,
          });
        throw err;
      }
    default:
      throw new ApiError(
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${Object.values(PATCH_TYPES).join(', ')}`,
      );
  }
}
