/**
 * deploy/crds/: one CustomResourceDefinition per kubeovn.io kind of the
 * registry, routed as the registry says and accepted by the API front's
 * CRD reading, and every kubeovn.io object of the shipped scenarios fits its
 * schema as the API front validates it (kube/apiserver/describe: no field
 * the schema does not declare, no value of the wrong type, nothing required
 * missing).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGISTRY } from '../../kube/registry.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { DEPLOY, ROOT, readManifests } from './manifests.ts';
import { settledObjects } from './runs.ts';
import { readCrd, validateObject } from '../../kube/apiserver/describe/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: unknown };
  subresources?: { status?: unknown };
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
}
interface Crd {
  metadata: { name: string };
  spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: CrdVersion[] };
}

const crds = readManifests(join(DEPLOY, 'crds')).map((m) => m.object as unknown as Crd);
const kubeovnKinds = Object.entries(REGISTRY).filter(([, d]) => d.group === 'kubeovn.io');

/** The served resource of a kind as the API front reads its CRD. */
function resourceOf(kind: string) {
  const crd = crds.find((c) => c.spec.names.kind === kind && c.spec.group === 'kubeovn.io');
  return crd === undefined ? undefined : readCrd(crd as unknown as KubeObject).resources[0];
}
/** What the API front would refuse or warn about (its validator types ObjectMeta itself, as a server does). */
const problems = (kind: string, o: Record<string, unknown>) =>
  validateObject(resourceOf(kind)!, o as unknown as KubeObject).map((c) => `${c.field}: ${c.reason}`);

const scenarioFiles = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml'));
const scenarioObjects = scenarioFiles.flatMap((f) => {
  const s = loadScenario(join(ROOT, 'scenarios', f));
  return [...s.objects, ...s.steps.flatMap((st) => st.apply)].map((o) => ({ file: f, ...o }));
});
const kubeovnObjects = scenarioObjects.filter((o) => o.object.apiVersion === 'kubeovn.io/v1');

describe('deploy/crds', () => {
  it('has exactly one CRD per kubeovn.io kind of the registry, and no other', () => {
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual(kubeovnKinds.map(([k]) => k).sort());
  });

  it.each(kubeovnKinds)('%s: group, version, plural and scope as the registry routes it', (kind, def) => {
    const crd = crds.find((c) => c.spec.names.kind === kind)!;
    expect(crd.metadata.name).toBe(`${def.plural}.${def.group}`);
    expect(crd.spec.group).toBe(def.group);
    expect(crd.spec.names.plural).toBe(def.plural);
    expect(crd.spec.scope).toBe(def.namespaced ? 'Namespaced' : 'Cluster');
    const stored = crd.spec.versions.filter((v) => v.storage);
    expect(stored.map((v) => [v.name, v.served])).toEqual([[def.version, true]]);
    const read = readCrd(crd as unknown as KubeObject);
    expect(read.causes).toEqual([]);
    expect(read.resources.map((r) => [r.group, r.version, r.plural, r.namespaced])).toEqual([
      [def.group, def.version, def.plural, def.namespaced],
    ]);
  });

  it('the shipped scenarios hold kubeovn.io objects of every kind the CRDs define but IP', () => {
    // IP objects are written by the controller; the rest must be exercised by the next test.
    const seen = new Set(kubeovnObjects.map((o) => o.kind));
    expect(kubeovnKinds.map(([k]) => k).filter((k) => k !== 'IP' && !seen.has(k))).toEqual([]);
  });

  it.each(
    kubeovnObjects.map((o) => [`${o.file}: ${o.kind}/${String((o.object.metadata as { name: string }).name)}`, o]),
  )('%s fits its CRD schema', (_, o) => {
    expect(resourceOf(o.kind)?.schema, `no CRD schema for ${o.kind}`).toBeDefined();
    expect(problems(o.kind, o.object)).toEqual([]);
  });

  it('what the controller writes (IP objects, the status of Vpcs, Subnets and SecurityGroups, OVN NAT specs and statuses) fits the CRDs: nothing an API server would prune', async () => {
    const written = await settledObjects(kubeovnKinds.map(([k]) => k));
    const kinds = new Set(written.map((w) => w.object.kind));
    expect(written.some((w) => w.object.kind === 'SecurityGroup' && w.object.status !== undefined)).toBe(true);
    expect([...kinds].sort()).toEqual([
      'IP',
      'IPPool',
      'IptablesDnatRule',
      'IptablesEIP',
      'IptablesFIPRule',
      'IptablesSnatRule',
      'OvnDnatRule',
      'OvnEip',
      'OvnFip',
      'OvnSnatRule',
      'ProviderNetwork',
      'QoSPolicy',
      'SecurityGroup',
      'Subnet',
      'SwitchLBRule',
      'Vip',
      'Vlan',
      'Vpc',
      'VpcNatGateway',
    ]);
    expect(written.some((w) => w.object.kind === 'Vip' && w.object.status !== undefined)).toBe(true);
    expect(written.some((w) => w.object.kind === 'SwitchLBRule' && w.object.status !== undefined)).toBe(true);
    expect(written.some((w) => w.object.kind === 'Subnet' && w.object.status !== undefined)).toBe(true);
    expect(written.some((w) => w.object.kind === 'Vpc' && w.object.status !== undefined)).toBe(true);
    const bad = written.flatMap((w) =>
      problems(w.object.kind, w.object as unknown as Record<string, unknown>).map(
        (p) => `${w.file}: ${w.object.kind}/${w.object.metadata.name}: ${p}`,
      ),
    );
    expect([...new Set(bad)]).toEqual([]);
  });

  it('the validation catches an unknown field, a wrong type and a missing required field', () => {
    const subnet = { apiVersion: 'kubeovn.io/v1', kind: 'Subnet', metadata: { name: 's' } };
    expect(problems('Subnet', { ...subnet, spec: { cidrBlok: '10.0.0.0/24' } })).toEqual([
      'spec.cidrBlok: FieldValueUnknown',
    ]);
    expect(problems('Subnet', { ...subnet, spec: { private: 'yes', mtu: 1.5 } })).toEqual([
      'spec.private: FieldValueTypeInvalid',
      'spec.mtu: FieldValueTypeInvalid',
    ]);
    const pool = { apiVersion: 'kubeovn.io/v1', kind: 'IPPool', metadata: { name: 'p' }, spec: { subnet: 's' } };
    expect(problems('IPPool', pool)).toEqual(['spec.ips: FieldValueRequired']);
  });
});
