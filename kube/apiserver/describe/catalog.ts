/**
 * The catalog of served resources: the built-in ones (builtins.ts) and those
 * CustomResourceDefinitions register (crd.ts). A CRD covering a kubeovn.io
 * kind kovn knows replaces the built-in entry (its schema and printer
 * columns apply from then on); deleting it brings the built-in entry back,
 * since kovn's controller still handles the kind. A CRD may not take a
 * resource of a Kubernetes group (pods, networkpolicies.networking.k8s.io):
 * the API server keeps serving its own, and so do we (refused, with the cause).
 */
import type { KubeObject } from '../../cluster/types.ts';
import { apiVersionOf } from '../../registry.ts';
import type { Catalog, FieldCause, ServedResource } from '../types.ts';
import { builtinResources } from './builtins.ts';
import { readCrd } from './crd.ts';

const pathKey = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`;
const kindKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

/** The catalog, plus what discovery needs to order its groups. */
export interface MutableCatalog extends Catalog {
  /** The group versions served, core first, then groups in the order they came (built-ins, then CRDs). */
  groups(): readonly { readonly group: string; readonly versions: readonly string[] }[];
  /** Whether the CRD of that name is registered (and served). */
  hasCrd(name: string): boolean;
  /** What registering the CRD would refuse it for, without registering it (a create's validation). */
  checkCrd(crd: KubeObject): readonly FieldCause[];
}

/**
 * A catalog holding the built-in resources; CRDs are added with `registerCrd`.
 *
 * @example
 * const c = createCatalog();
 * c.byPath('', 'v1', 'pods')?.kind // 'Pod'
 */
export function createCatalog(): MutableCatalog {
  const builtins = builtinResources();
  const crds = new Map<string, readonly ServedResource[]>();
  const listeners = new Set<() => void>();
  let index = buildIndex(builtins, crds);

  const changed = (): void => {
    index = buildIndex(builtins, crds);
    for (const l of [...listeners]) l();
  };

  return {
    all: () => index.all,
    byPath: (group, version, plural) => index.byPath.get(pathKey(group, version, plural)),
    byKind: (apiVersion, kind) => index.byKind.get(kindKey(apiVersion, kind)),
    groups: () => index.groups,
    hasCrd: (name) => crds.has(name),
    checkCrd(crd: KubeObject): readonly FieldCause[] {
      const { resources, causes } = readCrd(crd);
      return causes.length > 0 ? causes : clashes(resources, builtins, crds, crd.metadata.name);
    },
    registerCrd(crd: KubeObject): readonly FieldCause[] {
      const { resources, causes } = readCrd(crd);
      const all = causes.length > 0 ? causes : clashes(resources, builtins, crds, crd.metadata.name);
      if (all.length > 0) return all;
      // The same resources again (a CRD's status written) change nothing that discovery or /openapi/v2 says.
      const before = crds.get(crd.metadata.name);
      crds.set(crd.metadata.name, resources);
      if (JSON.stringify(before) !== JSON.stringify(resources)) changed();
      return [];
    },
    unregisterCrd(name: string): void {
      if (crds.delete(name)) changed();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** Built-ins of groups a CRD may not take (every group but kubeovn.io's, whose built-ins stand in for CRDs). */
function clashes(
  resources: readonly ServedResource[],
  builtins: readonly ServedResource[],
  crds: ReadonlyMap<string, readonly ServedResource[]>,
  self: string,
): FieldCause[] {
  const out: FieldCause[] = [];
  for (const r of resources) {
    if (builtins.some((b) => b.strategicMerge && b.group === r.group && (b.plural === r.plural || b.kind === r.kind))) {
      out.push({
        reason: 'FieldValueInvalid',
        field: 'spec.names',
        message: `${r.plural}.${r.group} (kind ${r.kind}) is served by the API server itself`,
      });
    }
    for (const [name, other] of crds) {
      if (name !== self && other.some((o) => o.group === r.group && o.version === r.version && o.kind === r.kind)) {
        out.push({
          reason: 'FieldValueInvalid',
          field: 'spec.names.kind',
          message: `${r.kind} is already served by CRD ${name}`,
        });
      }
    }
  }
  return out.filter((c, i) => out.findIndex((d) => d.message === c.message) === i);
}

interface Index {
  readonly all: readonly ServedResource[];
  readonly byPath: ReadonlyMap<string, ServedResource>;
  readonly byKind: ReadonlyMap<string, ServedResource>;
  readonly groups: readonly { readonly group: string; readonly versions: readonly string[] }[];
}

function buildIndex(builtins: readonly ServedResource[], crds: ReadonlyMap<string, readonly ServedResource[]>): Index {
  const custom = [...crds.values()].flat();
  const covered = new Set(custom.map((r) => `${r.group}/${r.plural}`));
  const all = Object.freeze([...builtins.filter((b) => !covered.has(`${b.group}/${b.plural}`)), ...custom]);
  const byPath = new Map<string, ServedResource>();
  const byKind = new Map<string, ServedResource>();
  const versions = new Map<string, string[]>();
  for (const r of all) {
    byPath.set(pathKey(r.group, r.version, r.plural), r);
    byKind.set(kindKey(apiVersionOf(r), r.kind), r);
    const vs = versions.get(r.group) ?? [];
    if (!vs.includes(r.version)) vs.push(r.version);
    versions.set(r.group, vs);
  }
  const groups = [...versions].map(([group, vs]) => ({ group, versions: vs.sort(compareVersions) }));
  groups.sort((a, b) => (a.group === '' ? -1 : b.group === '' ? 1 : 0));
  return { all, byPath, byKind, groups };
}

/**
 * Kubernetes' version priority: GA before beta before alpha, higher numbers first
 * (`v2`, `v1`, `v1beta2`, `v1beta1`, `v1alpha1`); the first is the preferred version.
 */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [x, y] = [rank(a), rank(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.localeCompare(b);
}
