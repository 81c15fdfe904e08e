/**
 * kovn's components run over a RecordingCluster, to learn which API requests
 * they make: the controller through every shipped scenario (its steps, then
 * everything deleted), and the node daemon setting its node up and wiring
 * a pod in and out.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SimBackend } from '../../backends/sim/index.ts';
import {
  makeTempDir,
  removeTempDir,
  runTool,
  startOvsdbServer,
  VSWITCH_SCHEMA,
} from '../../backends/ovn/control-plane/index.ts';
import { Controller } from '../../controller/controller.ts';
import { Replica } from '../../controller/replica.ts';
import { settled } from '../../controller/settle.ts';
import { encodeNodeNetwork, encodePodNetwork } from '../../kube/annotations.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { jsonLogger } from '../../kube/observe/log.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { kindDef } from '../../kube/registry.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { startNodeDaemon } from '../../node/daemon/daemon.ts';
import { network, request } from '../../node/daemon/testing/world.ts';
import { RecordingNetlink } from '../../node/netlink/recording.ts';
import { applyObjects, deleteObject, expandObjects } from '../../scenarios/expand.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { ROOT } from './manifests.ts';
import { type ApiUse, formatUse, RecordingCluster } from './recording-cluster.ts';

/** Kinds deleted at the end of a run, dependants first. */
const TEARDOWN = ['Pod', 'Service', 'NetworkPolicy', 'IPPool', 'Subnet', 'Vpc', 'Namespace', 'Node'];

const merge = (into: Map<string, ApiUse>, uses: readonly ApiUse[]) => {
  for (const u of uses) into.set(formatUse(u), u);
};

/** Called with the cluster each time the controller has settled (after its start and after each step). */
type Observe = (cluster: MemoryCluster) => Promise<void>;

/** One scenario: its objects, the controller started, each step applied, then everything deleted. */
async function runOne(file: string, observe: Observe = async () => {}): Promise<readonly ApiUse[]> {
  const s = loadScenario(file);
  const sim = await expandObjects(
    s.objects.map((o) => o.object),
    {},
  );
  const rec = new RecordingCluster(sim.cluster);
  const c = new Controller({ cluster: rec, backend: new SimBackend(), clock: realClock, random: seededRandomBytes(1) });
  try {
    await c.start();
    await settled(c);
    await observe(sim.cluster);
    for (const st of s.steps) {
      await applyObjects(
        sim,
        st.apply.map((o) => o.object),
        { mode: 'apply' },
      );
      for (const d of st.delete) await deleteObject(sim, d);
      await settled(c);
      await observe(sim.cluster);
    }
    for (const kind of TEARDOWN)
      for (const o of (await sim.cluster.list(kind)).items) {
        const ref = {
          kind,
          name: o.metadata.name,
          ...(kindDef(kind)?.namespaced ? { namespace: o.metadata.namespace! } : {}),
        };
        await sim.cluster.delete(ref).catch(() => {});
      }
    await settled(c);
  } finally {
    await c.stop();
    sim.workloads.stop();
  }
  return rec.uses;
}

/** The Lease `kovn controller` campaigns for (deploy/rbac.yaml's Role is in its namespace). */
export const CONTROLLER_LEASE = { namespace: 'kube-system', name: 'kovn-controller' };

const until = async (what: string, cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`deploy rbac run: timed out waiting for ${what}`);
};

/**
 * Two replicas as `kovn controller` runs them (short election timings):
 * the first takes the Lease, the second campaigns, the first renews, then
 * hands over on SIGTERM and the second takes the released Lease.
 */
async function runReplicas(): Promise<readonly ApiUse[]> {
  const cluster = new MemoryCluster();
  await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
  const rec = new RecordingCluster(cluster);
  const make = (identity: string) =>
    new Replica({
      cluster: rec,
      openBackend: async () => new SimBackend(),
      clock: realClock,
      random: () => 0.5,
      macRandom: seededRandomBytes(1),
      lease: CONTROLLER_LEASE,
      identity,
      timing: { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 100 },
      log: jsonLogger({ write: () => {}, now: () => 0, component: 'controller' }),
      exit: () => {},
    });
  const a = make('a');
  const b = make('b');
  try {
    a.start();
    await until('a leads', () => a.state === 'running');
    b.start();
    // A few retry periods: b reads the Lease held, a renews it.
    await new Promise((r) => setTimeout(r, 350));
    await a.terminate();
    await until('b leads', () => b.state === 'running');
  } finally {
    await a.terminate();
    await b.terminate();
  }
  return rec.uses;
}

/**
 * Every request the controller made: its replicas' election, and the
 * controller through the shipped scenarios.
 *
 * @example (await controllerUses()).map(formatUse) // ['Lease get in kube-system', 'Pod list', 'Pod patch in default', ...]
 */
export async function controllerUses(): Promise<ApiUse[]> {
  const all = new Map<string, ApiUse>();
  merge(all, await runReplicas());
  for (const f of scenarioFiles()) merge(all, await runOne(f));
  return [...all.values()];
}

const scenarioFiles = () =>
  readdirSync(join(ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(ROOT, 'scenarios', f));

/**
 * The objects of `kinds` as the controller left them each time it settled
 * in each shipped scenario (with the scenario's file), to check what it
 * writes against what the API server would keep.
 *
 * @example (await settledObjects(['Subnet'])).find((o) => o.object.metadata.name === 'ovn-default')?.object.status
 */
export async function settledObjects(kinds: readonly string[]): Promise<{ file: string; object: KubeObject }[]> {
  const out: { file: string; object: KubeObject }[] = [];
  for (const file of scenarioFiles())
    await runOne(file, async (cluster) => {
      for (const kind of kinds) for (const object of (await cluster.list(kind)).items) out.push({ file, object });
    });
  return out;
}

/**
 * Every request the node daemon made: starting over a bare Open_vSwitch
 * database, setting its node up once the Node is annotated, an ADD and a
 * DEL of a pod (needs ovsdb-server).
 */
export async function daemonUses(): Promise<ApiUse[]> {
  const dir = await makeTempDir('deployrbac');
  const server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
  const cluster = new MemoryCluster();
  const rec = new RecordingCluster(cluster);
  try {
    await runTool('ovs-vsctl', [`--db=${server.remote}`, '--no-wait', '--timeout=10', 'init']);
    const subnet = (name: string, cidrBlock: string) => ({
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name },
      spec: { cidrBlock, protocol: 'IPv4', mtu: 1400 },
    });
    await cluster.create(subnet('ovn-default', '10.16.0.0/16'));
    await cluster.create(subnet('join', '100.64.0.0/16'));
    const joinPort = {
      ips: ['100.64.0.2'],
      mac: '0a:58:64:40:00:02',
      cidrs: ['100.64.0.0/16'],
      gateways: ['100.64.0.1'],
    };
    const annotations = encodeNodeNetwork({ ...joinPort, logicalSwitch: 'join', portName: 'node-node1' });
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node1', annotations } });
    const pod = { name: 'p1', namespace: 'default', annotations: encodePodNetwork(network(5)) };
    await cluster.create({ apiVersion: 'v1', kind: 'Pod', metadata: pod, spec: { nodeName: 'node1' } });
    const d = await startNodeDaemon({
      node: 'node1',
      cluster: rec,
      netlink: new RecordingNetlink({ hostLinks: ['ovn0'] }),
      ovsRemote: server.remote,
      socket: join(dir, 'daemon.sock'),
      clock: realClock,
      wait: 'none',
      profile: 'netdev',
      setup: { ovnRemote: 'tcp:127.0.0.1:6642', encapIp: '172.18.0.2', nodeTimeoutMs: 30_000 },
    });
    try {
      await d.setup;
      for (const command of ['ADD', 'DEL'] as const) {
        const r = await d.agent.handle(request(command, 'p1'));
        if (!r.ok) throw new Error(`daemon ${command} p1: ${JSON.stringify(r)}`);
      }
    } finally {
      await d.close();
    }
  } finally {
    await server.stop();
    await removeTempDir(dir);
  }
  return [...rec.uses];
}
