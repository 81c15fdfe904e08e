/**
 * `kovn controller` as processes against `kovn sim serve --no-controller`
 * (another process, the quickstart loaded), read and written here through
 * the API source: two replicas, one
 * leads and reconciles, its /metrics parse as Prometheus text with
 * Kube-OVN's names and its stderr is JSON lines; the leader killed with -9
 * is replaced only once its lease has expired; a leader sent SIGTERM
 * releases the Lease and its standby takes over without waiting for expiry.
 * With `--backend ovn` the leader writes a local NB through `--nb`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn, runTool, startControlPlane } from '../backends/ovn/control-plane/index.ts';
import { recordOf } from '../controller/leader/record.ts';
import { connectApiSource } from '../kube/cluster/api/connect.ts';
import type { ClusterSource, KubeObject } from '../kube/cluster/types.ts';
import { parsePrometheusText, sampleValue } from '../kube/observe/testing/prom-text.ts';
import { realClock } from '../kube/runtime/clock.ts';
import { type Kovn, startKovn } from './testing/index.ts';

const LEASE_MS = 4_000;
const ELECTION = [
  '--leader-elect-lease-duration',
  `${LEASE_MS}ms`,
  '--leader-elect-renew-deadline',
  '3s',
  '--leader-elect-retry-period',
  '250ms',
];
const LEASE = { kind: 'Lease', namespace: 'kube-system', name: 'kovn-controller' };

const until = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] },
});

/** The JSON lines a process wrote on stderr (every line must be one). */
const logLines = (k: Kovn): Record<string, unknown>[] =>
  k
    .stderr()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('kovn controller processes against the API front', () => {
  let tmp: string;
  let kubeconfig: string;
  let serve: Kovn;
  let cluster: ClusterSource;
  const procs: Kovn[] = [];

  const startKovnWith = (identity: string, more: readonly string[]): Kovn => {
    const k = startKovn(
      [
        'controller',
        '--kubeconfig',
        kubeconfig,
        '--metrics-addr',
        '127.0.0.1:0',
        '--identity',
        identity,
        ...ELECTION,
        ...more,
      ],
      { tmp },
    );
    procs.push(k);
    return k;
  };
  const start = (identity: string): Kovn => startKovnWith(identity, []);
  const holder = async () =>
    recordOf((await cluster.get(LEASE)) ?? { apiVersion: '', kind: '', metadata: { name: '' } });
  const routed = async (name: string) =>
    (await cluster.get({ kind: 'Pod', namespace: 'default', name }))?.metadata.annotations?.[
      'ovn.kubernetes.io/routed'
    ] === 'true' || undefined;
  const metricsAddress = (k: Kovn) =>
    logLines(k).find((l) => l.msg === 'serving metrics')?.address as string | undefined;
  /** Pods the controller put on a subnet, by its annotation. */
  const podsOn = async (subnet: string) =>
    (await cluster.list('Pod')).items.filter(
      (p) => p.metadata.annotations?.['ovn.kubernetes.io/logical_switch'] === subnet,
    ).length;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'kovn-ctl-test-'));
    kubeconfig = join(tmp, 'kubeconfig.yaml');
    serve = startKovn(
      ['sim', 'serve', 'scenarios/quickstart.yaml', '--port', '0', '--kubeconfig-out', kubeconfig, '--no-controller'],
      { tmp },
    );
    await until('serve wrote its kubeconfig', () => existsSync(kubeconfig) || undefined);
    cluster = await connectApiSource({ kubeconfig, clock: realClock, random: Math.random });
  }, 120_000);
  afterAll(async () => {
    for (const k of [...procs, serve])
      if (k !== undefined && k.child.exitCode === null && k.child.signalCode === null) k.child.kill('SIGKILL');
    await Promise.all([...procs, serve].filter((k) => k !== undefined).map((k) => k.exited));
    rmSync(tmp, { recursive: true, force: true });
  });

  it('one of two leads and reconciles; kill -9 hands over after expiry; SIGTERM hands over at once', async () => {
    const a = start('a');
    await until('a leads', async () => (await holder()).holderIdentity === 'a' || undefined);
    const b = start('b');
    await cluster.create(pod('web-0'));
    await until('web-0 routed', () => routed('web-0'));
    await until(
      'every pod routed',
      async () =>
        (await cluster.list('Pod')).items.every(
          (p) => p.metadata.annotations?.['ovn.kubernetes.io/routed'] === 'true',
        ) || undefined,
    );

    // a's scrape: Prometheus text with Kube-OVN's names.
    const addr = await until('a serving metrics', () => metricsAddress(a));
    const scrape = await (await fetch(`http://${addr}/metrics`)).text();
    const f = parsePrometheusText(scrape);
    const subnet = { subnet_name: 'ovn-default', protocol: 'IPv4', subnet_cidr: '10.16.0.0/16' };
    expect(sampleValue(f, 'subnet_used_ip_count', subnet)).toBe(await podsOn('ovn-default'));
    expect(sampleValue(f, 'workqueue_adds_total', { name: 'Pod' })).toBeGreaterThan(0);
    expect(sampleValue(f, 'rest_client_requests_total', { method: 'PATCH', code: '200' })).toBeGreaterThan(0);
    expect(sampleValue(f, 'leader_election_master_status', { name: 'kovn-controller' })).toBe(1);
    expect(sampleValue(f, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect((await fetch(`http://${addr}/healthz`)).status).toBe(200);
    expect((await fetch(`http://${addr}/readyz`)).status).toBe(200);
    const bAddr = await until('b serving metrics', () => metricsAddress(b));
    const fb = parsePrometheusText(await (await fetch(`http://${bAddr}/metrics`)).text());
    expect(sampleValue(fb, 'leader_election_master_status', { name: 'kovn-controller' })).toBe(0);

    // kill -9: b waits the lease out, then leads and reconciles.
    await until(
      'b has seen a lead',
      () => logLines(b).some((l) => l.msg === 'leader seen' && l.leader === 'a') || undefined,
    );
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    const lastRenew = (await holder()).renewTime;
    await until('b leads', async () => (await holder()).holderIdentity === 'b' || undefined);
    const taken = await holder();
    expect(taken.acquireTime - lastRenew).toBeGreaterThanOrEqual(LEASE_MS);
    expect(taken.leaseTransitions).toBe(1);
    await cluster.create(pod('web-1'));
    await until('web-1 routed by b', () => routed('web-1'));

    // SIGTERM: b stops, releases, and c takes over at its next retry.
    const c = start('c');
    await until(
      'c has seen b lead',
      () => logLines(c).some((l) => l.msg === 'leader seen' && l.leader === 'b') || undefined,
    );
    b.child.kill('SIGTERM');
    expect((await b.exited).code).toBe(143);
    const released = await holder();
    expect(released.holderIdentity === '' || released.holderIdentity === 'c').toBe(true);
    await until('c leads', async () => (await holder()).holderIdentity === 'c' || undefined);
    const handed = await holder();
    const bRenewed = logLines(b).find((l) => l.msg === 'lease released');
    expect(bRenewed).toBeDefined();
    expect(handed.acquireTime - released.renewTime).toBeLessThan(LEASE_MS);
    await cluster.create(pod('web-2'));
    await until('web-2 routed by c', () => routed('web-2'));

    c.child.kill('SIGTERM');
    expect((await c.exited).code).toBe(143);
    // Every line of every process is a JSON object with a level and a message.
    for (const k of [a, b, c])
      for (const l of logLines(k))
        expect(l).toEqual(expect.objectContaining({ level: expect.any(String), msg: expect.any(String) }));
  }, 180_000);

  it.skipIf(!requireOvn('kovn controller --backend ovn'))(
    'with --backend ovn the leader writes the NB at --nb, and times its transactions as ovn-nb',
    async () => {
      const cp = await startControlPlane({ northd: false });
      try {
        const o = startKovnWith('o', ['--backend', 'ovn', '--nb', cp.nb.remote]);
        await until('o leads', async () => (await holder()).holderIdentity === 'o' || undefined);
        const nbctl = async (...args: string[]) =>
          (await runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, ...args])).stdout.trim();
        await until(
          'web-0 on ovn-default in the NB',
          async () => (await nbctl('lsp-list', 'ovn-default').catch(() => '')).includes('web-0.default') || undefined,
        );
        const addr = await until('o serving metrics', () => metricsAddress(o));
        const f = parsePrometheusText(await (await fetch(`http://${addr}/metrics`)).text());
        const nb = { db: 'ovn-nb', method: 'transact', code: '0' };
        expect(sampleValue(f, 'ovs_client_request_latency_milliseconds_count', nb)).toBeGreaterThan(0);
        o.child.kill('SIGTERM');
        expect((await o.exited).code).toBe(143);
      } finally {
        await cp.stop();
      }
    },
    180_000,
  );
});

describe('kovn controller refuses bad flags before it connects', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'kovn-ctl-flags-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it.each([
    [
      ['--leader-elect-renew-deadline', '20s'],
      /needs 0 < retryPeriod < renewDeadline < leaseDuration, got 2000 ms, 20000 ms, 15000 ms/,
    ],
    [['--leader-elect-retry-period', 'soon'], /--leader-elect-retry-period: expected a duration such as 15s or 500ms/],
    [['--backend', 'ovn'], /--backend ovn: needs --nb \(or OVN_NB_DB\)/],
    [['--metrics-addr', '10660'], /--metrics-addr: "10660" is not host:port/],
    [['--log-level', 'loud'], /--log-level: expected debug, info, warn or error/],
  ])('%j', async (args, message) => {
    const env = { ...process.env };
    delete env.OVN_NB_DB;
    const k = startKovn(['controller', '--kubeconfig', join(tmp, 'absent.yaml'), ...args], { tmp, env });
    expect((await k.exited).code).toBe(1);
    await k.closed;
    expect(k.stderr()).toMatch(message);
  });

  it('names the kubeconfig it cannot read', async () => {
    const k = startKovn(['controller', '--kubeconfig', join(tmp, 'absent.yaml')], { tmp });
    expect((await k.exited).code).toBe(1);
    await k.closed;
    expect(k.stderr()).toMatch(/absent\.yaml/);
  });
});
