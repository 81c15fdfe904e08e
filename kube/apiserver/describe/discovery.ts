/**
 * Discovery documents as a Kubernetes 1.20 API server writes them
 * (`/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`, `/version`):
 * what kubectl reads to map kinds and short names to paths, and what
 * `kubectl api-resources` and `kubectl version` print.
 */
import type { ApiAnswer, ServedResource } from '../types.ts';
import { STATUS_VERBS } from './builtins.ts';
import type { MutableCatalog } from './catalog.ts';

/**
 * What `/version` answers: a 1.20 server, so kubectl 1.20 sees no skew.
 * `gitVersion` says it is kovn's.
 */
export const VERSION_INFO = Object.freeze({
  major: '1',
  minor: '20',
  gitVersion: 'v1.20.2+kovn',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2021-01-13T00:00:00Z',
  goVersion: 'go1.15.5',
  compiler: 'gc',
  platform: 'linux/amd64',
});

const ok = (body: unknown): ApiAnswer => ({ status: 200, body });

const groupVersion = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

function apiGroup(group: string, versions: readonly string[]) {
  const list = versions.map((version) => ({ groupVersion: groupVersion(group, version), version }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

function resourceEntries(r: ServedResource): unknown[] {
  const main = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    ...(r.categories.length > 0 ? { categories: r.categories } : {}),
  };
  if (!r.statusSubresource) return [main];
  return [
    main,
    { name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: STATUS_VERBS },
  ];
}

function resourceList(catalog: MutableCatalog, group: string, version: string): ApiAnswer | undefined {
  const resources = catalog.all().filter((r) => r.group === group && r.version === version);
  if (resources.length === 0) return undefined;
  return ok({
    kind: 'APIResourceList',
    ...(group === '' ? {} : { apiVersion: 'v1' }),
    groupVersion: groupVersion(group, version),
    resources: resources.flatMap(resourceEntries),
  });
}

/**
 * The discovery document of a path, or undefined when the path is not one
 * (or names a group or version nobody serves: the HTTP side answers 404).
 *
 * @example discover(catalog, '/apis/kubeovn.io')?.body // { kind: 'APIGroup', name: 'kubeovn.io', ... }
 */
export function discover(catalog: MutableCatalog, rawPath: string): ApiAnswer | undefined {
  const path = rawPath.split('?')[0]!.replace(/\/+$/, '');
  if (path === '/version') return ok(VERSION_INFO);
  if (path === '/api') {
    return ok({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
  }
  if (path === '/apis') {
    const groups = catalog.groups().filter((g) => g.group !== '');
    return ok({ kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroup(g.group, g.versions)) });
  }
  const core = /^\/api\/([^/]+)$/.exec(path);
  if (core) return resourceList(catalog, '', core[1]!);
  const named = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (!named) return undefined;
  const [, group, version] = named as unknown as [string, string, string | undefined];
  if (version !== undefined) return resourceList(catalog, group, version);
  const g = catalog.groups().find((x) => x.group === group);
  return g ? ok({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions) }) : undefined;
}
