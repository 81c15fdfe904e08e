/**
 * `kovn sim connectivity` against the NetworkPolicy conformance suite (read in
 * place): each file's objects as plain manifests, `--ports` taken from its
 * step-0 probes, and every pod-to-pod expectation of step 0 met by the pair
 * the connectivity run reports for it. Plus the command itself, once, through
 * the CLI (JSON contract, a List document, named ports, errors).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parsePorts, PortSpecError, runConnectivity } from '../../scenarios/connectivity.ts';
import { loadManifests } from '../../scenarios/load.ts';
import { SimWorld } from '../../scenarios/run.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { EXCUSED_FILES_MAX, files, refusals } from '../netpol-suite.ts';

const run = promisify(execFile);
const KOVN = join(import.meta.dirname, '..', '..', 'cli', 'bin', 'kovn.js');

describe('kovn sim connectivity', () => {
  it('gives every step-0 expectation of the netpol conformance suite its verdict', {
    timeout: 20 * 60_000,
  }, async () => {
    let checked = 0;
    let pairs = 0;
    let excused = 0;
    const excusedFiles: string[] = [];
    const wrong: string[] = [];
    for (const file of files()) {
      const s = loadManifests([file]);
      const withPort = s.expect.filter((e) => e.port !== undefined && e.protocol !== 'ICMP');
      if (withPort.length === 0) continue;
      const ports = parsePorts([...new Set(withPort.map((e) => `${e.protocol}/${e.port}`))].join(','));
      const world = new SimWorld();
      const r = await runConnectivity({ ...s, expect: [], steps: [] }, { world, ports });
      await world.close();
      pairs += r.pairs.length;
      const refused = refusals(r.warnings).length > 0;
      if (refused) excusedFiles.push(file);
      const verdict = new Map(r.pairs.map((p) => [`${p.from}|${p.to}|${p.protocol}|${p.port}`, p]));
      for (const e of withPort) {
        const got = verdict.get(`${e.from}|${e.to}|${e.protocol}|${e.port}`);
        if (got === undefined) continue; // not pod to pod (a Service, an address, or a pod to itself)
        checked++;
        // The file's own run refused an object (the cause in the case at hand) and the pair says it is unsure.
        if (got.allowed !== e.allowed && refused && got.unsure?.includes('InvalidObject')) {
          excused++;
          continue;
        }
        if (got.allowed !== e.allowed)
          wrong.push(
            `${file.split('/').slice(-2).join('/')}: ${e.from} → ${e.to} ${e.protocol}/${e.port}: want ${e.allowed}`,
          );
      }
    }
    console.log(
      `netpol conformance via connectivity: ${checked - wrong.length - excused}/${checked} expectations, ${pairs} pairs, ${excused} unsure in ${excusedFiles.length} files the API server would refuse`,
    );
    expect(excusedFiles.length).toBeLessThanOrEqual(EXCUSED_FILES_MAX);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });

  it('parses --ports and names the bad entry', () => {
    expect(parsePorts('TCP/80, udp/53,TCP/http')).toEqual([
      { protocol: 'TCP', port: 80 },
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 'http' },
    ]);
    expect(() => parsePorts('TCP/0')).toThrow(PortSpecError);
    expect(() => parsePorts('80')).toThrow(/"80" is not PROTOCOL\/PORT/);
    expect(() => parsePorts('TCP/Not_A_Name')).toThrow(/neither a port number nor a port name/);
  });

  it('runs as a command on a List document: JSON pairs, named ports per destination, declared ports by default', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kovn-conn-'));
    try {
      const pod = (name: string, labels: Record<string, string>, ports: object[]) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', labels },
        spec: { containers: [{ name: 'c', image: 'x', ports }] },
      });
      const list = {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          pod('web', { app: 'web' }, [{ name: 'http', containerPort: 8080 }]),
          pod('api', { app: 'api' }, [{ name: 'http', containerPort: 9090 }]),
          pod('client', { app: 'client' }, []),
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            metadata: { name: 'api-from-web', namespace: 'default' },
            spec: {
              podSelector: { matchLabels: { app: 'api' } },
              ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
            },
          },
        ],
      };
      const file = join(dir, 'cluster.yaml');
      writeFileSync(file, JSON.stringify(list));
      const named = await run('node', [KOVN, 'sim', 'connectivity', file, '--ports', 'TCP/http', '--json']);
      const { pairs } = JSON.parse(named.stdout) as {
        pairs: { from: string; to: string; port: number; allowed: boolean }[];
      };
      const by = (from: string, to: string) =>
        pairs.find((p) => p.from === `default/${from}` && p.to === `default/${to}`);
      // `http` is 8080 on web and 9090 on api; client has no such port and is never a destination.
      expect(by('client', 'web')).toMatchObject({ port: 8080, allowed: true });
      expect(by('web', 'api')).toMatchObject({ port: 9090, allowed: true });
      expect(by('client', 'api')).toMatchObject({ port: 9090, allowed: false });
      expect(by('web', 'client')).toBeUndefined();
      expect(named.stderr).toContain('default/client has no TCP container port named http');
      expect(pairs).toHaveLength(4);
      const declared = await run('node', [KOVN, 'sim', 'connectivity', file, '--json']);
      // Without --ports: each destination's declared ports, the same two here.
      const strip = (ps: Record<string, unknown>[]) => ps.map(({ reason: _, ...p }) => p);
      expect(strip(JSON.parse(declared.stdout).pairs)).toEqual(strip(pairs));
      const table = await run('node', [KOVN, 'sim', 'connectivity', file]);
      expect(table.stdout).toContain('3/4 pairs allowed, 1 denied (3 pods)');
      expect(table.stdout).toContain('denied  default/client -> default/api TCP/9090');
      await expect(run('node', [KOVN, 'sim', 'connectivity', file, '--ports', 'TCP/x_y'])).rejects.toMatchObject({
        stderr: expect.stringContaining('neither a port number nor a port name'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!requireOvn('connectivity on real OVN'))('kovn sim connectivity on real OVN', () => {
  it("gives every pair of the NetworkPolicy scenario the simulator's verdict", { timeout: 120_000 }, async () => {
    const s = loadManifests([join(import.meta.dirname, '..', '..', 'scenarios', 'network-policy.yaml')]);
    const ports = parsePorts('TCP/8080,TCP/9090,TCP/5432,UDP/53');
    const sim = new SimWorld();
    const a = await runConnectivity(s, { world: sim, ports }).finally(() => sim.close());
    const ovn = await OvnWorld.start();
    const b = await runConnectivity(s, { world: ovn, ports }).finally(() => ovn.close());
    expect(b.pairs.map((p) => [p.from, p.to, p.protocol, p.port, p.allowed])).toEqual(
      a.pairs.map((p) => [p.from, p.to, p.protocol, p.port, p.allowed]),
    );
    expect(a.pairs.filter((p) => p.allowed).length).toBeGreaterThan(0);
    expect(a.pairs.filter((p) => !p.allowed).length).toBeGreaterThan(0);
  });
});
