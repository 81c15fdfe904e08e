/**
 * OvnBackend when servers go away: a standalone NB killed and restarted
 * (between applies and in the middle of one), and a 3-member raft cluster
 * whose leader is killed during a stream of applies. Afterwards read()
 * equals what was applied, plan(read(), desired) is empty, and every row
 * kovn meant to write exists exactly once in NB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMatch } from '../../../model/match/index.ts';
import { type Tables, type Topology, buildTopology, plan } from '../../../model/topology/index.ts';
import {
  type ControlPlane,
  type OvsdbCluster,
  requireOvn,
  startCluster,
  startControlPlane,
} from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { nbColumn, topologyDiff } from './testing.ts';

const FAST = { backoff: { initialMs: 50, maxMs: 500 }, probeIntervalMs: 2000 };

/** Generation `g`: switches 0..g, each with ports, ACLs (guarded inserts) and a router with NAT and routes. */
function generation(g: number, portsPerSwitch = 20): Topology {
  const input: { [T in 'switch' | 'switchPort' | 'acl' | 'router' | 'nat' | 'staticRoute']: Tables[T][] } = {
    switch: [],
    switchPort: [],
    acl: [],
    router: [],
    nat: [],
    staticRoute: [],
  };
  input.router.push({ name: 'lr', options: {}, loadBalancers: [], externalIds: {} });
  for (let i = 0; i <= g; i++) {
    input.switch.push({
      name: `ls${i}`,
      loadBalancers: [],
      otherConfig: { subnet: `10.${i}.0.0/24` },
      externalIds: { gen: String(g) },
    });
    for (let p = 0; p < portsPerSwitch; p++) {
      input.switchPort.push({
        name: `ls${i}-p${p}`,
        switch: `ls${i}`,
        type: '',
        addresses: [
          `0a:00:00:00:${i.toString(16).padStart(2, '0')}:${p.toString(16).padStart(2, '0')} 10.${i}.0.${p + 10}`,
        ],
        portSecurity: [],
        options: {},
        externalIds: {},
      });
    }
    for (let a = 0; a < 3; a++) {
      input.acl.push({
        attachTo: { kind: 'switch', name: `ls${i}` },
        direction: 'to-lport',
        priority: 1000 + a,
        match: parseMatch(`ip4.src == 10.${i}.${a}.0/24`),
        action: 'drop',
        log: false,
        options: {},
        externalIds: {},
      });
    }
    input.nat.push({
      router: 'lr',
      type: 'snat',
      externalIp: '172.18.0.2',
      logicalIp: `10.${i}.0.0/24`,
      options: {},
      externalIds: {},
    });
    input.staticRoute.push({
      router: 'lr',
      ipPrefix: `192.168.${i}.0/24`,
      nexthop: '100.64.0.1',
      routeTable: '',
      options: {},
      externalIds: {},
    });
  }
  return buildTopology(input).topology;
}

/** How many NB rows carry each kovn-key (ACL, NAT, routes) or each name (switches, ports): all must be 1. */
async function counts(remote: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const bump = (k: string) => out.set(k, (out.get(k) ?? 0) + 1);
  for (const table of ['ACL', 'NAT', 'Logical_Router_Static_Route']) {
    // Within one generation every row's external_ids differ (the key is in them): a duplicate row repeats them.
    for (const ids of await nbColumn(remote, table, 'external_ids')) bump(`${table} ${ids}`);
  }
  for (const table of ['Logical_Switch', 'Logical_Switch_Port', 'Logical_Router']) {
    for (const name of await nbColumn(remote, table, 'name')) bump(`${table} ${name}`);
  }
  return out;
}

function expectEachOnce(c: Map<string, number>, t: Topology): void {
  expect([...c.values()].filter((n) => n !== 1)).toEqual([]);
  expect(c.size).toBe(t.switch.size + t.switchPort.size + t.router.size + t.acl.size + t.nat.size + t.staticRoute.size);
}

describe.skipIf(!requireOvn('ovn backend resilience'))('OvnBackend across a standalone server restart', () => {
  let cp: ControlPlane;
  let be: OvnBackend;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    be = await OvnBackend.connect({ remotes: cp.nb.remote, maxOpsPerTransaction: 40, session: FAST });
  });
  afterAll(async () => {
    await be?.close();
    await cp?.stop();
  });

  it('after kill + restart, plan(read(), desired) is still empty and new writes land', async () => {
    const a = generation(1);
    await be.apply(plan(await be.read(), a));
    const connects = be.session.stats.connects;
    await cp.nb.kill();
    await cp.nb.restart();
    expect(plan(await be.read(), a)).toEqual([]);
    const b = generation(2);
    await be.apply(plan(await be.read(), b));
    expect(be.session.stats.connects).toBeGreaterThan(connects);
    expect(topologyDiff(await be.read(), b)).toEqual([]);
    expectEachOnce(await counts(cp.nb.remote), b);
  });

  it('killed in the middle of an apply and restarted: the apply completes, nothing lost or doubled', async () => {
    const c = generation(20);
    const ops = plan(await be.read(), c);
    let done = false;
    let killed: Promise<void> | undefined;
    // SIGKILL goes out synchronously, from inside the cache's handling of the first commit.
    const off = be.session.cache.onChange(() => {
      off();
      killed = cp.nb.kill();
    });
    const applying = be.apply(ops, { label: 'under fire' }).finally(() => (done = true));
    await be.session.cache.waitFor(() => killed !== undefined, { timeoutMs: 10_000 });
    await killed;
    expect(done).toBe(false); // killed mid-apply
    await cp.nb.restart();
    const result = await applying;
    expect(result.transactions).toBe(Math.ceil(ops.length / 40));
    expect(topologyDiff(await be.read(), c)).toEqual([]);
    expect(plan(await be.read(), c)).toEqual([]);
    expectEachOnce(await counts(cp.nb.remote), c);
  });
});

describe.skipIf(!requireOvn('ovn backend on a raft cluster'))('OvnBackend on a 3-member cluster', () => {
  let cluster: OvsdbCluster;
  let be: OvnBackend;

  beforeAll(async () => {
    cluster = await startCluster({ members: 3 });
    be = await OvnBackend.connect({ remotes: cluster.remotes, maxOpsPerTransaction: 25, session: FAST });
  });
  afterAll(async () => {
    await be?.close();
    await cluster?.stop();
  });

  it('the leader killed during a stream of applies: every intended row exists once and read() equals desired', async () => {
    const gens = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((g) => generation(g, 10));
    const leader = await cluster.leader();
    const connects = be.session.stats.connects;
    let kill: () => void = () => {};
    const killed = new Promise<void>((resolve) => (kill = () => void cluster.kill(leader).then(resolve)));
    let done = false;
    const stream = (async () => {
      for (const [i, t] of gens.entries()) {
        if (i === 3) kill(); // SIGKILL is sent synchronously; applies 3.. run into the election
        await be.apply(plan(await be.read(), t), { label: `stream ${i}` });
      }
    })().finally(() => (done = true));
    await killed;
    expect(done).toBe(false);
    await stream;
    expect(be.session.stats.connects).toBeGreaterThan(connects); // it did move to the new leader
    const last = gens[gens.length - 1]!;
    expect(topologyDiff(await be.read(), last)).toEqual([]);
    expect(plan(await be.read(), last)).toEqual([]);
    expectEachOnce(await counts(cluster.remotes), last);
    await cluster.restart(leader);
  });
});
