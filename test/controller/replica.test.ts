/**
 * Two replicas of `kovn controller` in one process on one in-memory
 * cluster (short election timings on wall time): only the leader runs the
 * controller; the scrape of its metrics parses as Prometheus text with
 * Kube-OVN's names; its logs are JSON lines naming their objects; SIGTERM
 * hands over without waiting for the lease to expire; a leader that cannot
 * renew stops writing and ends its process.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { FaultyCluster } from '../../kube/cluster/faults.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { jsonLogger } from '../../kube/observe/log.ts';
import { parsePrometheusText, sampleValue } from '../../kube/observe/testing/prom-text.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { recordOf } from '../../controller/leader/record.ts';
import { Replica } from '../../controller/replica.ts';
import { settled } from '../../controller/settle.ts';

const TIMING = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 100 };
const LEASE = { namespace: 'kube-system', name: 'kovn-controller' };

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'node-a', containers: [{ name: 'c' }] },
});

const until = async (what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const replicas: Replica[] = [];
afterEach(async () => {
  for (const r of replicas.splice(0)) await r.terminate();
});

function replica(cluster: FaultyCluster | MemoryCluster, identity: string, level: 'debug' | 'info' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const exits: number[] = [];
  const registry = new Registry();
  const r = new Replica({
    cluster,
    openBackend: async () => new SimBackend(),
    clock: realClock,
    random: () => 0.5,
    macRandom: seededRandomBytes(1),
    lease: LEASE,
    identity,
    timing: TIMING,
    log: jsonLogger({ write: (l) => lines.push(JSON.parse(l)), now: () => 0, component: 'controller', level }),
    registry,
    exit: (code) => exits.push(code),
  });
  replicas.push(r);
  return { r, lines, exits, registry };
}

const annotated = async (cluster: MemoryCluster, name: string) =>
  (await cluster.get({ kind: 'Pod', namespace: 'default', name }))?.metadata.annotations?.[
    'ovn.kubernetes.io/routed'
  ] === 'true';

describe('controller replicas', () => {
  it('only the leader runs the controller; its scrape carries Kube-OVN metric names; its logs name objects', async () => {
    const cluster = new MemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    const a = replica(cluster, 'a', 'debug');
    const b = replica(cluster, 'b');
    a.r.start();
    await until('a leads and runs', () => a.r.state === 'running');
    b.r.start();
    await cluster.create(pod('web-0'));
    await cluster.create(pod('web-1'));
    await until('pods annotated', async () => (await annotated(cluster, 'web-0')) && annotated(cluster, 'web-1'));
    await settled(a.r.controller()!);
    expect(b.r.controller()).toBeUndefined();
    expect([a.r.ready(), b.r.ready(), a.r.healthy()]).toEqual([undefined, undefined, undefined]);

    const f = parsePrometheusText(await a.registry.metrics());
    const subnet = { subnet_name: 'ovn-default', protocol: 'IPv4', subnet_cidr: '10.16.0.0/16' };
    expect(sampleValue(f, 'subnet_used_ip_count', subnet)).toBe(2);
    // 10.16.0.0/16: 65,536 less network, broadcast and gateway, less the two pods.
    expect(sampleValue(f, 'subnet_available_ip_count', subnet)).toBe(65_536 - 3 - 2);
    expect(sampleValue(f, 'workqueue_adds_total', { name: 'Pod' })).toBeGreaterThanOrEqual(2);
    expect(sampleValue(f, 'workqueue_queue_duration_seconds_count', { name: 'Pod' })).toBeGreaterThanOrEqual(2);
    expect(sampleValue(f, 'ovs_client_request_latency_milliseconds_count', { db: 'sim', code: '0' })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(f, 'kovn_commit_operations_total')).toBeGreaterThan(0);
    expect(sampleValue(f, 'leader_election_master_status', { name: 'kovn-controller' })).toBe(1);
    const fb = parsePrometheusText(await b.registry.metrics());
    expect(sampleValue(fb, 'leader_election_master_status', { name: 'kovn-controller' })).toBe(0);
    expect(sampleValue(fb, 'subnet_used_ip_count', subnet)).toBeUndefined();

    expect(a.lines).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'started leading', kind: 'Lease', namespace: 'kube-system' }),
    );
    expect(b.lines).toContainEqual(expect.objectContaining({ msg: 'leader seen', leader: 'a' }));
    // At debug level, a line per reconciled object naming it.
    expect(a.lines).toContainEqual(
      expect.objectContaining({ level: 'debug', msg: 'reconciled', kind: 'Pod', namespace: 'default', name: 'web-1' }),
    );
    // An Event on the Lease, as client-go's resource lock records it.
    const events = (await cluster.list('Event', { namespace: 'kube-system' })).items;
    expect(events).toContainEqual(
      expect.objectContaining({
        involvedObject: expect.objectContaining({ kind: 'Lease', name: 'kovn-controller' }),
        reason: 'LeaderElection',
        message: 'a became leader',
      }),
    );
  });

  it('a failing write is logged as a warning naming the object, and retried', async () => {
    const inner = new MemoryCluster();
    const cluster = new FaultyCluster(inner);
    await inner.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    const a = replica(cluster, 'a');
    a.r.start();
    await until('a runs', () => a.r.state === 'running');
    cluster.fail('patch', { kind: 'Pod', reason: 'Conflict' });
    await inner.create(pod('web-0'));
    await until('web-0 annotated', () => annotated(inner, 'web-0'));
    expect(a.lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'reconcile failed',
        kind: 'Pod',
        namespace: 'default',
        name: 'web-0',
        errorReason: 'Conflict',
      }),
    );
  });

  it('SIGTERM stops the leader, releases the lease, and the standby takes over at its next retry', async () => {
    const cluster = new MemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    const a = replica(cluster, 'a');
    const b = replica(cluster, 'b');
    a.r.start();
    await until('a runs', () => a.r.state === 'running');
    b.r.start();
    await until('b sees a', () => b.r.elector.leader() === 'a');
    await a.r.terminate();
    expect(a.r.controller()).toBeUndefined();
    const released = recordOf((await cluster.get({ kind: 'Lease', ...LEASE }))!);
    expect(released.holderIdentity === '' || released.holderIdentity === 'b').toBe(true);
    await until('b runs', () => b.r.state === 'running');
    const took = recordOf((await cluster.get({ kind: 'Lease', ...LEASE }))!);
    // Well before a's lease would have expired: taken over, not waited out.
    expect(took.acquireTime - released.renewTime).toBeLessThan(TIMING.leaseDurationMs);
    expect(took.leaseTransitions).toBe(1);
    await cluster.create(pod('web-9'));
    await until('web-9 annotated by b', () => annotated(cluster, 'web-9'));
    expect(a.exits).toEqual([]);
  });

  it('SIGTERM while the leader is still opening its backend: the controller never starts, the backend is closed', async () => {
    const cluster = new MemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    let open!: (b: SimBackend) => void;
    const opening = new Promise<SimBackend>((resolve) => {
      open = resolve;
    });
    const backend = new SimBackend();
    let closed = false;
    const close = backend.close.bind(backend);
    backend.close = async () => {
      closed = true;
      await close();
    };
    const lines: Record<string, unknown>[] = [];
    const r = new Replica({
      cluster,
      openBackend: () => opening,
      clock: realClock,
      random: () => 0.5,
      macRandom: seededRandomBytes(1),
      lease: LEASE,
      identity: 'a',
      timing: TIMING,
      log: jsonLogger({ write: (l) => lines.push(JSON.parse(l)), now: () => 0, component: 'controller' }),
      exit: () => {},
    });
    replicas.push(r);
    r.start();
    await until('a starting', () => r.state === 'starting');
    await r.terminate();
    expect(r.state).toBe('done');
    open(backend);
    await until('the backend closed', () => closed);
    await cluster.create(pod('web-0'));
    await new Promise((done) => setTimeout(done, 300));
    expect(r.controller()).toBeUndefined();
    expect(lines.some((l) => l.msg === 'controller started')).toBe(false);
    expect(await annotated(cluster, 'web-0')).toBe(false);
  });

  it('a leader that cannot renew stops its controller and ends its process; the standby takes over', async () => {
    const inner = new MemoryCluster();
    const cluster = new FaultyCluster(inner);
    await inner.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    const a = replica(cluster, 'a');
    const b = replica(inner, 'b');
    a.r.start();
    await until('a runs', () => a.r.state === 'running');
    b.r.start();
    cluster.fail('update', { kind: 'Lease', times: 1_000 });
    cluster.fail('get', { kind: 'Lease', times: 1_000 });
    await until('a exits', () => a.exits.length > 0);
    expect(a.exits).toEqual([1]);
    expect(a.r.controller()).toBeUndefined();
    expect(a.r.healthy()).toBe('leader election lost');
    expect(a.lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'leader election lost' }));
    await until('b runs', () => b.r.state === 'running');
    await inner.create(pod('web-1'));
    await until('web-1 annotated by b', () => annotated(inner, 'web-1'));
  });
});
