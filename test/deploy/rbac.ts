/**
 * RBAC as sets of `group resource verb` lines, both what deploy/'s roles
 * grant a ServiceAccount and what a run of kovn's code asked of the API (a
 * RecordingCluster's uses), and the ClusterSource calls written in kovn's
 * sources, so the RBAC test can tell a call the run never made.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { kindDef } from '../../kube/registry.ts';
import type { ManifestObject } from './manifests.ts';
import type { ApiUse } from './recording-cluster.ts';

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** The fields of the RBAC kinds (and the rest) this file reads. */
interface RbacObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly subjects?: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
  readonly roleRef?: { readonly kind: string; readonly name: string };
  readonly rules?: readonly Rule[];
}

/** One `group resource verb`, within one namespace (a Role's grant; a namespaced request) or not. */
export interface Access {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  readonly namespace?: string;
}

export const formatAccess = (a: Access): string =>
  `${a.group === '' ? 'core' : a.group} ${a.resource} ${a.verb}${a.namespace ? ` in ${a.namespace}` : ''}`;

const sameRule = (a: Access, b: Access) => a.group === b.group && a.resource === b.resource && a.verb === b.verb;

/**
 * What the roles bound to the ServiceAccount `namespace/name` grant: a
 * ClusterRole's grants in every namespace, a Role's in its binding's.
 *
 * @example grantsOf(manifests, 'kube-system', 'kovn-daemon').map(formatAccess) // ['core nodes list', ...]
 */
export function grantsOf(manifests: readonly ManifestObject[], namespace: string, name: string): Access[] {
  const objs = manifests.map((m) => m.object as unknown as RbacObject);
  const out: Access[] = [];
  for (const b of objs.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')) {
    const bound = (b.subjects ?? []).some(
      (s) => s.kind === 'ServiceAccount' && s.name === name && s.namespace === namespace,
    );
    const ref = b.roleRef;
    if (!bound || ref === undefined) continue;
    const role = objs.find(
      (o) =>
        o.kind === ref.kind &&
        o.metadata.name === ref.name &&
        (o.kind === 'ClusterRole' || o.metadata.namespace === b.metadata.namespace),
    );
    if (role === undefined) throw new Error(`${b.kind} ${b.metadata.name}: no ${ref.kind} ${ref.name}`);
    const where = b.kind === 'RoleBinding' ? { namespace: b.metadata.namespace ?? 'default' } : {};
    for (const r of role.rules ?? []) {
      if (r.resourceNames !== undefined) throw new Error(`${role.metadata.name}: resourceNames are not compared`);
      for (const group of r.apiGroups ?? [])
        for (const resource of r.resources ?? [])
          for (const verb of r.verbs ?? []) out.push({ group, resource, verb, ...where });
    }
  }
  return out;
}

/** The accesses a run's uses are: their kinds' group and resource (`/status` for the subresource). */
export function needsOf(uses: readonly ApiUse[]): Access[] {
  return uses.map((u) => {
    const d = kindDef(u.kind);
    if (d === undefined) throw new Error(`${u.kind}: not a kind of the registry`);
    const resource = `${d.plural}${u.subresource ? `/${u.subresource}` : ''}`;
    return { group: d.group, resource, verb: u.verb, ...(u.namespace ? { namespace: u.namespace } : {}) };
  });
}

/**
 * Where grants and needs differ: needs no grant covers (a ClusterRole's
 * grant covers every namespace, a Role's its own), and grants no need uses.
 * Both empty: the roles grant exactly what is used.
 */
export function compareAccess(
  grants: readonly Access[],
  needs: readonly Access[],
): { readonly ungranted: string[]; readonly unused: string[] } {
  const covers = (g: Access, n: Access) => sameRule(g, n) && (g.namespace === undefined || g.namespace === n.namespace);
  const ungranted = needs.filter((n) => !grants.some((g) => covers(g, n))).map(formatAccess);
  const unused = grants.filter((g) => !needs.some((n) => covers(g, n))).map(formatAccess);
  return { ungranted: [...new Set(ungranted)].sort(), unused: [...new Set(unused)].sort() };
}

/** A ClusterSource call written in a source file: the method and, when written literally, the kind. */
export interface CallSite {
  readonly file: string;
  readonly method: string;
  readonly kind?: string;
  /** `patch(ref, p, { subresource: 'status' })`. */
  readonly status?: true;
}

const CALL =
  /\b(?:cluster|source)\s*\.\s*(list|get|watch|create|update|updateStatus|patch|delete|recordEvent)\s*\(\s*(?:\{\s*kind:\s*'(\w+)')?/g;
const INFORMER = /new Informer\(\s*[\w.]+\s*,\s*(?:'(\w+)')?/g;

/** The ClusterSource calls of the non-test sources under `dirs` (repository-relative) of `root`. */
export function callSites(root: string, dirs: readonly string[]): CallSite[] {
  const out: CallSite[] = [];
  const visit = (p: string) => {
    if (statSync(p).isDirectory()) {
      if (!p.endsWith('testing')) for (const n of readdirSync(p)) visit(join(p, n));
      return;
    }
    if (!p.endsWith('.ts') || p.endsWith('.test.ts')) return;
    const file = relative(root, p);
    // Comments hold examples of calls (JSDoc), not calls.
    const text = readFileSync(p, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const m of text.matchAll(CALL)) {
      // The call's arguments end at the statement's end; a status patch names its subresource there.
      const rest = text.slice(m.index, text.indexOf(';', m.index));
      const status = /subresource:\s*'status'/.test(rest) ? { status: true as const } : {};
      out.push({ file, method: m[1]!, ...(m[2] ? { kind: m[2] } : {}), ...status });
    }
    for (const m of text.matchAll(INFORMER)) {
      out.push({ file, method: 'list', ...(m[1] ? { kind: m[1] } : {}) });
      out.push({ file, method: 'watch', ...(m[1] ? { kind: m[1] } : {}) });
    }
  };
  for (const d of dirs) visit(join(root, d));
  return out;
}

/** The uses a ClusterSource method is sent as (RecordingCluster's mapping). */
export function usesOfMethod(site: Pick<CallSite, 'method' | 'status'>): { verb: string; subresource?: 'status' }[] {
  if (site.method === 'updateStatus') return [{ verb: 'update', subresource: 'status' }];
  if (site.method === 'recordEvent') return [{ verb: 'create' }, { verb: 'patch' }];
  return [{ verb: site.method, ...(site.status ? { subresource: 'status' as const } : {}) }];
}

/**
 * The call sites no recorded use stands for: a method the run never sent,
 * or a literal kind it never sent that method for.
 */
export function unexercised(sites: readonly CallSite[], uses: readonly ApiUse[]): string[] {
  const out: string[] = [];
  for (const s of sites) {
    const kind = s.method === 'recordEvent' ? 'Event' : s.kind;
    const hit = usesOfMethod(s).every((m) =>
      uses.some((u) => u.verb === m.verb && u.subresource === m.subresource && (kind === undefined || u.kind === kind)),
    );
    if (!hit) out.push(`${s.file}: ${s.method}${s.kind ? ` of ${s.kind}` : ''}${s.status ? '/status' : ''}`);
  }
  return out;
}
