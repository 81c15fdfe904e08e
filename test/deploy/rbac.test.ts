/**
 * deploy/rbac.yaml grants each of kovn's ServiceAccounts exactly what its
 * code asks of the API: the controller run through every shipped scenario
 * and the node daemon through its node set-up, an ADD and a DEL, over a
 * recording cluster; every ClusterSource call written in their sources must
 * be one the runs made (else the run misses a path and the RBAC may too).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { DEPLOY, ROOT, readManifests } from './manifests.ts';
import { callSites, compareAccess, formatAccess, grantsOf, needsOf, unexercised } from './rbac.ts';
import type { ApiUse } from './recording-cluster.ts';
import { controllerUses, daemonUses } from './runs.ts';

const manifests = readManifests(DEPLOY);
const INFORMER = 'kube/runtime';

describe('RBAC of the controller', () => {
  let uses: ApiUse[];
  beforeAll(async () => {
    uses = await controllerUses();
  });

  it('kovn-controller is granted exactly what the controller asks', () => {
    const diff = compareAccess(grantsOf(manifests, 'kube-system', 'kovn-controller'), needsOf(uses));
    expect(diff).toEqual({ ungranted: [], unused: [] });
  });

  it("every ClusterSource call of the controller's sources was made in the run", () => {
    const sites = callSites(ROOT, ['controller', INFORMER]);
    expect(sites.length).toBeGreaterThan(5);
    expect(unexercised(sites, uses)).toEqual([]);
  });
});

describe.skipIf(!requireOvn('deploy rbac: the node daemon'))('RBAC of the node daemon', () => {
  let uses: ApiUse[];
  beforeAll(async () => {
    uses = await daemonUses();
  });

  it('kovn-daemon is granted exactly what the daemon asks', () => {
    const diff = compareAccess(grantsOf(manifests, 'kube-system', 'kovn-daemon'), needsOf(uses));
    expect(diff).toEqual({ ungranted: [], unused: [] });
  });

  it("every ClusterSource call of the daemon's sources was made in the run", () => {
    const sites = callSites(ROOT, [join('node', 'daemon'), INFORMER]);
    expect(sites.length).toBeGreaterThan(3);
    expect(unexercised(sites, uses)).toEqual([]);
  });
});

describe('the RBAC comparison', () => {
  it("a verb granted and never used, or used and never granted, or used outside a Role's namespace, shows", () => {
    const rbac = (kind: string, name: string, extra: Record<string, unknown>) => ({
      file: 'x',
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name, namespace: 'n' }, ...extra },
    });
    const manifests = [
      rbac('ClusterRole', 'r', {
        rules: [{ apiGroups: ['kubeovn.io'], resources: ['subnets', 'subnets/status'], verbs: ['patch'] }],
      }),
      rbac('ClusterRoleBinding', 'b', {
        roleRef: { kind: 'ClusterRole', name: 'r' },
        subjects: [{ kind: 'ServiceAccount', name: 'a', namespace: 'n' }],
      }),
      rbac('Role', 'lease', { rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }] }),
      rbac('RoleBinding', 'lb', {
        roleRef: { kind: 'Role', name: 'lease' },
        subjects: [{ kind: 'ServiceAccount', name: 'a', namespace: 'n' }],
      }),
    ];
    const grants = grantsOf(manifests, 'n', 'a');
    expect(grants.map(formatAccess)).toEqual([
      'kubeovn.io subnets patch',
      'kubeovn.io subnets/status patch',
      'coordination.k8s.io leases get in n',
    ]);
    expect(grantsOf(manifests, 'n', 'other')).toEqual([]);
    const needs = needsOf([
      { kind: 'Subnet', verb: 'patch', subresource: 'status' },
      { kind: 'IP', verb: 'delete' },
      { kind: 'Lease', verb: 'get', namespace: 'n' },
      { kind: 'Lease', verb: 'get', namespace: 'elsewhere' },
    ]);
    expect(compareAccess(grants, needs)).toEqual({
      ungranted: ['coordination.k8s.io leases get in elsewhere', 'kubeovn.io ips delete'],
      unused: ['kubeovn.io subnets patch'],
    });
    expect(compareAccess(grants, needs.slice(0, 1).concat(needs[2]!, { ...needs[0]!, resource: 'subnets' }))).toEqual({
      ungranted: [],
      unused: [],
    });
  });

  it('a call site the run never made is reported, with its kind and subresource', () => {
    const sites = [
      { file: 'a.ts', method: 'patch', kind: 'Vpc', status: true as const },
      { file: 'b.ts', method: 'delete' },
      { file: 'c.ts', method: 'recordEvent' },
    ];
    expect(unexercised(sites, [{ kind: 'Vpc', verb: 'patch' }])).toEqual([
      'a.ts: patch of Vpc/status',
      'b.ts: delete',
      'c.ts: recordEvent',
    ]);
    expect(
      unexercised(sites, [
        { kind: 'Vpc', verb: 'patch', subresource: 'status' },
        { kind: 'IP', verb: 'delete' },
        { kind: 'Event', verb: 'create' },
        { kind: 'Event', verb: 'patch' },
      ]),
    ).toEqual([]);
  });
});
