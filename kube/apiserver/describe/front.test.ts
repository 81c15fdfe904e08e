/**
 * The description behind the real HTTP front (kube/apiserver/http) with
 * kovn's CRD manifests (deploy/crds), driven by kubectl 1.20 over HTTPS:
 * the Tables `kubectl get` prints, `kubectl apply` computing its strategic
 * merge patches from our /openapi/v2 (no fallback warning), CRDs'
 * printer columns, and unknown fields of a custom resource pruned with a
 * warning when client-side validation is off.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { realClock } from '../../runtime/clock.ts';
import { renderKubeconfig } from '../http/kubeconfig.ts';
import { type ApiServer, startApiServer } from '../http/server.ts';
import { selfSignedCertificate } from '../http/tls.ts';
import { kubectlBinary, pythonWithKubernetes } from '../testing/clients.ts';
import { createApiDescription, type LiveApiDescription } from './description.ts';
import { widgetCrd } from './testing/crds.ts';

const run = promisify(execFile);
const kubectl = kubectlBinary();
const python = pythonWithKubernetes();
const CRDS = join(import.meta.dirname, '../../../deploy/crds');

describe.skipIf(kubectl === undefined)('kubectl 1.20 through the API front with the description', () => {
  let dir: string;
  let cluster: MemoryCluster;
  let description: LiveApiDescription;
  let api: ApiServer;

  const file = (name: string, docs: unknown[]): string => {
    const p = join(dir, name);
    writeFileSync(p, docs.map((d) => stringify(d)).join('---\n'));
    return p;
  };
  const kc = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const base = ['--kubeconfig', join(dir, 'k.yaml'), '--cache-dir', join(dir, 'cache')];
    try {
      const { stdout, stderr } = await run(kubectl!, [...base, ...args], { timeout: 30_000 });
      return { code: 0, out: stdout, err: stderr };
    } catch (e) {
      const x = e as { code?: number; stdout?: string; stderr?: string };
      return { code: x.code ?? -1, out: x.stdout ?? '', err: x.stderr ?? '' };
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kovn-front-'));
    const tls = await selfSignedCertificate();
    cluster = new MemoryCluster({ now: () => Date.parse('2026-01-01T00:00:00Z') });
    for (const name of ['default', 'shop'])
      await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    description = await createApiDescription(cluster, {
      crdFiles: [CRDS],
      now: () => Date.parse('2026-01-01T00:05:00Z'),
    });
    api = await startApiServer({ cluster, description, clock: realClock, random: () => 0.5, token: 't', tls });
    writeFileSync(join(dir, 'k.yaml'), renderKubeconfig({ server: api.url, caCert: tls.cert, token: 't' }));
  });
  afterAll(async () => {
    await api?.close();
    description?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deployment = (env: Record<string, string>) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx',
              env: Object.entries(env).map(([name, value]) => ({ name, value })),
              resources: { limits: { cpu: '1' } },
              livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
            },
          ],
        },
      },
    },
  });

  it('applies twice with strategic merge patches computed from our OpenAPI (no fallback warning)', async () => {
    const first = await kc('apply', '-f', file('d1.yaml', [deployment({ A: '1' })]));
    expect(first.err).toBe('');
    expect(first.out).toContain('deployment.apps/web created');
    const second = await kc('apply', '-f', file('d2.yaml', [deployment({ A: '1', B: '2' })]));
    expect(second.err).toBe('');
    expect(second.out).toContain('deployment.apps/web configured');
    const d = await cluster.get({ kind: 'Deployment', namespace: 'shop', name: 'web' });
    const spec = d?.spec as { template: { spec: { containers: { env: unknown[] }[] } } };
    expect(spec.template.spec.containers[0]?.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
  });

  it('prints pods as a 1.20 server does, -o wide with the IP and node', async () => {
    await cluster.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'db-0', namespace: 'shop' },
      spec: { nodeName: 'node-1', containers: [{ name: 'db', image: 'pg' }] },
      status: {
        phase: 'Running',
        podIP: '10.16.0.9',
        containerStatuses: [{ name: 'db', ready: true, restartCount: 0 }],
      },
    });
    const wide = await kc('get', 'pods', '-n', 'shop', '-o', 'wide', '--field-selector', 'metadata.name=db-0');
    const [header, row] = wide.out.trim().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    expect(row?.split(/\s+/)).toEqual(['db-0', '1/1', 'Running', '0', '5m', '10.16.0.9', 'node-1', '<none>', '<none>']);
  });

  it("prints a kovn CRD's printer columns, and prunes a custom resource's unknown field with a warning", async () => {
    const subnet = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 'data' },
      spec: { cidrBlock: '10.17.0.0/24', protocol: 'IPv4', colour: 'red' },
    };
    const r = await kc('apply', '--validate=false', '-f', file('s.yaml', [subnet]));
    expect(r.out).toContain('subnet.kubeovn.io/data created');
    expect(r.err).toContain('unknown field "spec.colour"');
    const stored = await cluster.get({ kind: 'Subnet', name: 'data' });
    expect(stored?.spec).toEqual({ cidrBlock: '10.17.0.0/24', protocol: 'IPv4' });
    const get = await kc('get', 'subnet', 'data');
    const [header, row] = get.out.trim().split('\n');
    expect(header?.split(/\s+/).slice(0, 6)).toEqual(['NAME', 'PROVIDER', 'VPC', 'VLAN', 'PROTOCOL', 'CIDR']);
    // Absent values are empty cells (null), which kubectl prints blank.
    expect(row?.split(/\s+/).slice(0, 3)).toEqual(['data', 'IPv4', '10.17.0.0/24']);
    const vpc = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Vpc',
      metadata: { name: 'v1' },
      spec: { bfdPort: { ip: '10.255.255.255' } },
    };
    expect((await kc('apply', '-f', file('vpc.yaml', [vpc]))).out).toContain('vpc.kubeovn.io/v1 created');
    // The CRD's default, applied as the API server applies it.
    expect((await cluster.get({ kind: 'Vpc', name: 'v1' }))?.spec).toEqual({
      bfdPort: { ip: '10.255.255.255', enabled: false },
    });
    const refused = await kc('apply', '-f', file('s2.yaml', [{ ...subnet, metadata: { name: 'data2' } }]));
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('unknown field "colour"');
  });

  it('serves a CRD created through the API: its resources are discovered and its objects validated', async () => {
    const crd = await kc('apply', '-f', file('crd.yaml', [widgetCrd()]));
    expect(crd.out).toContain('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    const wait = await kc('wait', '--for', 'condition=established', '--timeout', '20s', 'crd/widgets.example.com');
    expect(wait.out).toContain('condition met');
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'shop' },
      spec: { size: '50%' },
    };
    const created = await kc('apply', '-f', file('w.yaml', [widget]));
    expect(created.err).toBe('');
    expect(created.out).toContain('widget.example.com/w created');
    const bad = await kc(
      'apply',
      '-f',
      file('w2.yaml', [{ ...widget, metadata: { name: 'w2', namespace: 'shop' }, spec: { colour: 1 } }]),
    );
    expect(bad.err).toContain('unknown field "colour"');
    const get = await kc('get', 'wd', '-n', 'shop');
    expect(get.out.trim().split('\n')[0]?.split(/\s+/)).toEqual(['NAME', 'AGE']);
    const refused = await kc(
      'apply',
      '-f',
      file('c2.yaml', [{ ...widgetCrd(), metadata: { name: 'widget.example.com' } }]),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('metadata.name');
  });

  it.skipIf(python === undefined)(
    "reads with Python's kubernetes client: version, groups, resources, CRDs with status",
    async () => {
      const script = [
        'import sys',
        'from kubernetes import client, config',
        'config.load_kube_config(sys.argv[1])',
        'print(client.VersionApi().get_code().minor)',
        "print(','.join(g.name for g in client.ApisApi().get_api_versions().groups))",
        "print(','.join(r.name for r in client.CoreV1Api().get_api_resources().resources))",
        'for c in client.ApiextensionsV1Api().list_custom_resource_definition().items:',
        "    print(c.metadata.name, c.status.accepted_names.kind, ','.join(x.type + '=' + x.status for x in c.status.conditions))",
      ].join('\n');
      const { stdout } = await run(python!, ['-c', script, join(dir, 'k.yaml')], { timeout: 30_000 });
      const [minor, groups, core, ...crds] = stdout.trim().split('\n');
      expect(minor).toBe('20');
      expect(groups?.split(',')).toEqual(expect.arrayContaining(['apps', 'kubeovn.io', 'apiextensions.k8s.io']));
      expect(core?.split(',')).toEqual(expect.arrayContaining(['pods', 'pods/status', 'nodes', 'configmaps']));
      expect(crds).toContain('subnets.kubeovn.io Subnet NamesAccepted=True,Established=True');
    },
  );
});
