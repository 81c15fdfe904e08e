/**
 * A request path of the Kubernetes REST API taken apart, as the API
 * server's RequestInfoFactory does: `/api/v1/...` (the core group) or
 * `/apis/<group>/<version>/...`, then `namespaces/<ns>/` for a namespaced
 * resource, the resource (plural), an optional name and subresource. The
 * legacy `/watch/` prefix after the group version is accepted (a watch).
 * Pure: no catalog here; the handler looks the resource up.
 */

/** What a resource path names. */
export interface ResourcePath {
  readonly group: string;
  readonly version: string;
  readonly namespace?: string;
  /** The resource (plural) as written in the path. */
  readonly plural: string;
  readonly name?: string;
  readonly subresource?: string;
  /** The path had the legacy `/watch/` segment. */
  readonly watchPrefix: boolean;
}

/** Namespace subresources: `/api/v1/namespaces/<name>/status` names the Namespace, not a resource `status`. */
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);

/**
 * The resource a path names, or undefined when it names none (discovery
 * paths, `/healthz`, anything else): the handler answers those elsewhere or
 * with 404.
 *
 * @example
 * parseResourcePath('/apis/kubeovn.io/v1/subnets/ovn-default/status')
 * // { group: 'kubeovn.io', version: 'v1', plural: 'subnets', name: 'ovn-default', subresource: 'status', watchPrefix: false }
 * parseResourcePath('/api/v1/namespaces/prod/pods') // { group: '', version: 'v1', namespace: 'prod', plural: 'pods', ... }
 */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(2);
  } else return undefined;
  const version = rest[0]!;
  let segs = rest.slice(1).map(decode);
  if (segs.some((s) => s === undefined || s === '')) return undefined;
  let watchPrefix = false;
  if (segs[0] === 'watch') {
    watchPrefix = true;
    segs = segs.slice(1);
  }
  let namespace: string | undefined;
  if (segs[0] === 'namespaces' && segs.length > 1) {
    namespace = segs[1];
    if (segs.length > 2 && !NAMESPACE_SUBRESOURCES.has(segs[2]!)) {
      segs = segs.slice(2);
    } else {
      // `namespaces/<name>[/status]`: the Namespace itself, cluster-scoped.
      return withOptional({ group, version, plural: 'namespaces', watchPrefix }, namespace, segs[2]);
    }
  }
  if (segs.length === 0 || segs.length > 3) return undefined;
  const [plural, name, subresource] = segs as [string, string | undefined, string | undefined];
  return {
    group,
    version,
    ...(namespace !== undefined ? { namespace } : {}),
    plural,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    watchPrefix,
  };
}

function withOptional(
  base: Omit<ResourcePath, 'name' | 'subresource'>,
  name: string | undefined,
  subresource: string | undefined,
): ResourcePath {
  return {
    ...base,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

function decode(seg: string): string | undefined {
  try {
    return decodeURIComponent(seg);
  } catch {
    return undefined;
  }
}
