/**
 * `kovn sim connectivity` against the NetworkPolicy conformance suite (read in
 * place): each file's objects as plain manifests, `--ports` taken from its
 * step-0 probes, and every pod-to-pod expectation of step 0 met by the pair
 * the connectivity run reports for it. Plus the command itself, through the
 * CLI (JSON contract, a List document, named ports, errors), its streamed
 * JSON against the whole result, --max-pairs and --from/--to, and a long run:
 * progress on a stderr that is no terminal, and a signal that ends it.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warningJSON } from '../../kube/objects/warnings.ts';
import { pairJSON } from '../../cli/connectivity-output.ts';
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

describe('kovn sim connectivity, streamed', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kovn-conn-stream-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `namespaces` × `per` pods with a declared port each, and a NetworkPolicy in the first namespace. */
  const cluster = (name: string, namespaces: number, per: number) => {
    const items: object[] = [];
    for (let n = 0; n < namespaces; n++)
      for (let i = 0; i < per; i++)
        items.push({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `p${i}`, namespace: `ns${n}`, labels: { app: i % 2 ? 'web' : 'db' } },
          spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 + (i % 2) }] }] },
        });
    items.push({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'db-from-web', namespace: 'ns0' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
      },
    });
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    return file;
  };

  it('writes the JSON document runConnectivity gives whole, pair by pair', { timeout: 120_000 }, async () => {
    const file = cluster('small.json', 2, 10);
    const world = new SimWorld();
    const whole = await runConnectivity(loadManifests([file]), { world }).finally(() => world.close());
    const { stdout } = await run('node', [KOVN, 'sim', 'connectivity', file, '--json']);
    expect(whole.pairs).toHaveLength(380);
    expect(whole.pairs.some((p) => !p.allowed)).toBe(true);
    const unstreamed = { pairs: whole.pairs.map(pairJSON), warnings: whole.warnings.map(warningJSON) };
    expect(stdout).toBe(`${JSON.stringify(unstreamed)}\n`);
  });

  it('refuses more pairs than --max-pairs before it runs, with the number; --from/--to narrow them', {
    timeout: 120_000,
  }, async () => {
    const file = cluster('narrow.json', 2, 10);
    const refused = run('node', [KOVN, 'sim', 'connectivity', file, '--json', '--max-pairs', '379']);
    await expect(refused).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining(
        "kovn: 380 pairs (20 source pods, 20 destination pods, on each destination's ports) are more than --max-pairs 379: narrow them with --from/--to",
      ),
    });
    const narrowed = await run('node', [
      ...[KOVN, 'sim', 'connectivity', file, '--json', '--max-pairs', '379'],
      ...['--from', 'ns1/p1,ns0', '--to', 'ns1,app=db'],
    ]);
    const pairs = (JSON.parse(narrowed.stdout) as { pairs: { from: string; to: string }[] }).pairs;
    // From ns0's ten pods and ns1/p1, to ns1's pods labelled db (p0, p2, ... p8), never to itself.
    expect(pairs).toHaveLength(11 * 5);
    expect(new Set(pairs.map((p) => p.to))).toEqual(new Set(['ns1/p0', 'ns1/p2', 'ns1/p4', 'ns1/p6', 'ns1/p8']));
    await expect(run('node', [KOVN, 'sim', 'connectivity', file, '--from', 'a/b/c'])).rejects.toMatchObject({
      stderr: expect.stringContaining('--from: "a/b/c" is neither a namespace'),
    });
  });

  it('shows a long run on stderr when it is no terminal, and a signal ends it mid-way', {
    timeout: 120_000,
  }, async () => {
    // 1,000 pods: 999,000 pairs, a run of half a minute or more; its JSON into a file (writes that never wait).
    const file = cluster('long.json', 10, 100);
    const out = join(dir, 'long-out.json');
    const fd = openSync(out, 'w');
    const child = spawn(process.execPath, [KOVN, 'sim', 'connectivity', file, '--json'], {
      stdio: ['ignore', fd, 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    closeSync(fd);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const probing = /kovn: step 0: probes \d+\/999000 \(/;
    while (child.exitCode === null && !probing.test(stderr)) await new Promise((r) => setTimeout(r, 100));
    expect(child.exitCode, stderr).toBe(null);
    // The pairs already answered went out as they came.
    expect(readFileSync(out, 'utf8')).toMatch(/^\{"pairs":\[\{"from":"ns0\/p0","to":"ns0\/p1"/);
    const reached = Math.max(...[...stderr.matchAll(/probes (\d+)\/999000/g)].map((m) => Number(m[1])));
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 143, signal: null });
    // It ended there, not after answering every pair (a loop that never lets the signal in).
    const written = readFileSync(out, 'utf8').split('{"from"').length - 1;
    expect(written).toBeGreaterThanOrEqual(reached - 1000);
    expect(written).toBeLessThan(reached + 100_000);
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
