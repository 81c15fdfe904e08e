/**
 * kubectl 1.20 (Debian's, see ../testing/clients.ts) against the
 * description: it must read our discovery and our protobuf /openapi/v2,
 * validate manifests with it (no --validate=false), and refuse what a 1.20
 * API server's schema refuses, naming the field.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { kubectlBinary } from '../testing/clients.ts';
import { createApiDescription, type LiveApiDescription } from './description.ts';
import { type DiscoveryServer, serveDescription } from './testing/discovery-server.ts';
import { subnetCrd } from './testing/crds.ts';

const run = promisify(execFile);
const kubectl = kubectlBinary();

describe.skipIf(kubectl === undefined)('kubectl 1.20 against the description', () => {
  let dir: string;
  let server: DiscoveryServer;
  let description: LiveApiDescription;

  const file = (name: string, docs: unknown[]): string => {
    const p = join(dir, name);
    writeFileSync(p, docs.map((d) => stringify(d)).join('---\n'));
    return p;
  };
  const kc = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const base = ['--server', server.url, '--cache-dir', join(dir, 'cache'), '--kubeconfig', join(dir, 'none')];
    try {
      const { stdout, stderr } = await run(kubectl!, [...base, ...args], { timeout: 30_000 });
      return { code: 0, out: stdout + stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kovn-describe-'));
    writeFileSync(join(dir, 'none'), '');
    description = await createApiDescription(new MemoryCluster(), { crdFiles: [file('crds.yaml', [subnetCrd()])] });
    server = await serveDescription(description);
  });
  afterAll(async () => {
    await server?.close();
    description?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          hostNetwork: true,
          tolerations: [{ operator: 'Exists' }],
          containers: [
            {
              name: 'web',
              image: 'nginx',
              ports: [{ name: 'http', containerPort: 8080 }],
              env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
              resources: { limits: { cpu: '1', memory: '1Gi' } },
            },
          ],
          volumes: [{ name: 'run', hostPath: { path: '/run/openvswitch', type: 'DirectoryOrCreate' } }],
        },
      },
    },
  };

  it('validates built-in and custom objects with our schema and accepts those that fit', async () => {
    const subnet = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 's' },
      spec: { cidrBlock: '10.1.0.0/24' },
    };
    const r = await kc('create', '--dry-run=client', '-f', file('ok.yaml', [deployment, subnet, subnetCrd()]));
    expect(r.out).toContain('deployment.apps/web created (dry run)');
    expect(r.out).toContain('subnet.kubeovn.io/s created (dry run)');
    expect(r.out).toContain('customresourcedefinition.apiextensions.k8s.io/subnets.kubeovn.io created (dry run)');
    expect(r.code).toBe(0);
  });

  it('refuses an unknown field of a built-in kind and of a CRD, naming it', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, bogus: 1 }] }] },
    };
    const p = await kc('create', '--dry-run=client', '-f', file('bad-pod.yaml', [pod]));
    expect(p.code).not.toBe(0);
    expect(p.out).toContain('ValidationError(Pod.spec.containers[0].ports[0]): unknown field "bogus"');
    const subnet = {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 's' },
      spec: { cidrBlock: 'x', colour: 1 },
    };
    const s = await kc('create', '--dry-run=client', '-f', file('bad-subnet.yaml', [subnet]));
    expect(s.code).not.toBe(0);
    expect(s.out).toContain('ValidationError(Subnet.spec): unknown field "colour"');
    const noContainers = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} };
    const m = await kc('create', '--dry-run=client', '-f', file('no-containers.yaml', [noContainers]));
    expect(m.out).toContain('missing required field "containers"');
  });

  it('lists resources with their short names, and explains fields', async () => {
    const r = await kc('api-resources');
    expect(r.code).toBe(0);
    const line = (name: string): string[] =>
      (r.out.split('\n').find((l) => l.startsWith(`${name} `)) ?? '').split(/\s+/).filter(Boolean);
    expect(line('pods')).toEqual(['pods', 'po', 'v1', 'true', 'Pod']);
    expect(line('subnets')).toEqual(['subnets', 'subnet', 'kubeovn.io/v1', 'false', 'Subnet']);
    const e = await kc('explain', 'subnet.spec');
    expect(e.out).toMatch(/cidrBlock\s+<string> -required-/);
  });
});
