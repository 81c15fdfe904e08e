/**
 * deploy/ applied as an operator applies it, with Debian's kubectl 1.20, to
 * `kovn sim serve` (over the quickstart, the controller inside): kubectl
 * validates every manifest against the served /openapi/v2 (no
 * --validate=false) and creates every object; applying again changes
 * nothing; the objects read back are the manifests' (no field pruned as
 * unknown); the CRDs serve their kinds with Kube-OVN's columns.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedForTest, serveForTest } from '../../cli/testing/serve.ts';
import { kubectlBinary } from '../../kube/apiserver/testing/clients.ts';
import { DEPLOY, ROOT, readManifests, yamlFiles } from './manifests.ts';

const _run = promisify(execFile);
const kubectl = kubectlBinary();
/** In the order docs/deploy.md gives. */
const ORDER = ['crds', 'rbac.yaml', 'ovn-central.yaml', 'ovs-ovn.yaml', 'controller.yaml', 'node.yaml'];

describe.skipIf(kubectl === undefined)('deploy/ applied with kubectl 1.20 to kovn sim serve', () => {
  let served: ServedForTest;
  let dir: string;
  const k = (...args: string[]) => served.kubectl(...args);

  beforeAll(async () => {
    served = await serveForTest([join(ROOT, 'scenarios', 'quickstart.yaml')], 'kovn-deploy-apply-');
    dir = served.dir;
  });
  afterAll(async () => {
    await served?.close();
  });

  it('every file of deploy/ is applied in the documented order', () => {
    const files = yamlFiles(DEPLOY).map((f) => f.slice('deploy/'.length));
    const covered = files.filter((f) => ORDER.some((o) => f === o || f.startsWith(`${o}/`)));
    expect(covered).toEqual(files);
  });

  it('kubectl apply validates and creates every object, and warns of no unknown field', async () => {
    // serve registers deploy/crds at start and creates them (a real cluster has none before the apply):
    // kubectl then tells, once per CRD, that it adds its last-applied annotation, and says nothing else.
    const before = await k('get', 'crd', '-o', 'name');
    const created = before.stdout.trim().split('\n').sort();
    expect(created).toEqual(
      yamlFiles(join(DEPLOY, 'crds')).map(
        (f) =>
          `customresourcedefinition.apiextensions.k8s.io/${f
            .split('/')
            .at(-1)!
            .replace(/\.yaml$/, '')}`,
      ),
    );
    for (const f of ORDER) {
      const r = await k('apply', '-f', join(DEPLOY, f));
      expect(r.code, `${f}: ${r.stderr}`).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l !== '');
      const expected =
        f === 'crds'
          ? created.map(
              (c) =>
                `Warning: resource customresourcedefinitions/${c.split('/')[1]} is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.`,
            )
          : [];
      expect(warnings, f).toEqual(expected);
      expect(r.stdout).not.toMatch(/unchanged/);
    }
  });

  it('every object is there as written: metadata, spec, rules and data read back unpruned', async () => {
    for (const m of readManifests(DEPLOY)) {
      const { apiVersion, kind, metadata } = m.object;
      const ns = metadata.namespace ? ['-n', metadata.namespace] : [];
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      const resource = group ? `${kind.toLowerCase()}.${group}` : kind.toLowerCase();
      const got = await k('get', resource, metadata.name, ...ns, '-o', 'json');
      expect(got.code, `${kind} ${metadata.name}: ${got.stderr}`).toBe(0);
      const live = JSON.parse(got.stdout) as Record<string, unknown>;
      for (const field of ['spec', 'rules', 'roleRef', 'subjects', 'data', 'automountServiceAccountToken'])
        if (field in m.object)
          expect(live[field], `${kind} ${metadata.name} ${field}`).toMatchObject(m.object[field] as object);
      expect(live.metadata).toMatchObject({ labels: (metadata as { labels?: object }).labels ?? {} });
    }
  });

  it("kubectl's validation is on: a manifest with a misspelt field is refused before it is sent", async () => {
    const bad = join(dir, 'bad.yaml');
    const controller = readFileSync(join(DEPLOY, 'controller.yaml'), 'utf8');
    writeFileSync(bad, controller.replace('  replicas: 2', '  replicaz: 2'));
    const r = await k('apply', '-f', bad);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ValidationError\(Deployment\.spec\): unknown field "replicaz"/);
  });

  it('applying again changes nothing', async () => {
    for (const f of ORDER) {
      const r = await k('apply', '-f', join(DEPLOY, f));
      expect(r.code, `${f}: ${r.stderr}`).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(
        lines.filter((l) => !l.endsWith(' unchanged')),
        f,
      ).toEqual([]);
    }
  });

  it("the CRDs serve Kube-OVN's kinds with Kube-OVN's columns", async () => {
    const subnets = await k('get', 'subnets');
    expect(subnets.code, subnets.stderr).toBe(0);
    expect(subnets.stdout.split('\n')[0]?.split(/\s+/)).toEqual([
      'NAME',
      'PROVIDER',
      'VPC',
      'VLAN',
      'PROTOCOL',
      'CIDR',
      'PRIVATE',
      'NAT',
      'DEFAULT',
      'GATEWAYTYPE',
      'V4USED',
      'V4AVAILABLE',
      'V6USED',
      'V6AVAILABLE',
      'EXCLUDEIPS',
      'U2OINTERCONNECTIONIP',
    ]);
    expect(subnets.stdout).toMatch(/^ovn-default\s/m);
    for (const kind of ['vpc', 'ip', 'ippool']) expect((await k('get', kind)).code).toBe(0);
  });
});
