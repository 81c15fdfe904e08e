/**
 * The controller's change path against a real NB: translated rows committed
 * through the Committer, one pod's change as a mutate, and restarts that
 * write nothing when nothing changed, remove an orphan row of ours, and never
 * touch a row that is not ours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recording } from '../recording-backend.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/backend.ts';
import { nbColumn, nbctl } from '../../backends/ovn/nb/testing.ts';
import { parseSubnetSpec } from '../../model/ipam/index.ts';
import { plan } from '../../model/topology/index.ts';
import { type CommitClock, Committer } from '../../controller/desired/commit.ts';
import { DesiredState } from '../../controller/desired/store.ts';
import {
  networkPolicyRows,
  podNodeMemberships,
  podPortRow,
  subnetRows,
  vpcRows,
} from '../../controller/translate/index.ts';

/** Real timers: the committer's batching delay is 0 and retries are not expected here. */
const clock: CommitClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

function fill(c: Committer, pods: readonly string[]): void {
  const vpc = vpcRows({ name: 'ovn-cluster' }).value;
  c.set({ kind: 'Vpc', name: 'ovn-cluster' }, { rows: [{ table: 'router', row: vpc.router }] });
  const cfg = parseSubnetSpec({ name: 'ovn-default', cidrBlock: '10.16.0.0/16' });
  if (!cfg.ok) throw new Error('bad subnet');
  const s = subnetRows({
    config: cfg.value,
    router: 'ovn-cluster',
    gatewayMac: '0a:58:0a:10:00:01',
    nodeSwitchCidr: '100.64.0.0/16',
    loadBalancers: [],
  }).value;
  c.set(
    { kind: 'Subnet', name: 'ovn-default' },
    {
      rows: [
        { table: 'switch', row: s.switch },
        { table: 'routerPort', row: s.routerPort },
        { table: 'switchPort', row: s.switchPort },
      ],
    },
  );
  c.set(
    { kind: 'Node', name: 'node-1' },
    { rows: [{ table: 'portGroup', row: { name: 'node.node.1', ports: [], externalIds: {} } }] },
  );
  const np = networkPolicyRows({
    name: 'deny-all',
    namespace: 'default',
    selected: [],
    families: ['IPv4'],
    ingress: [],
  }).value;
  c.set(
    { kind: 'NetworkPolicy', namespace: 'default', name: 'deny-all' },
    {
      rows: [
        { table: 'portGroup', row: np.portGroup },
        ...np.addressSets.map((row) => ({ table: 'addressSet' as const, row })),
        ...np.acls.map((row) => ({ table: 'acl' as const, row })),
      ],
    },
  );
  for (const pod of pods) {
    // Addresses follow the pod's own number, as an allocation would stay with its pod.
    const i = Number(pod.split('-')[1]);
    const port = podPortRow({
      pod,
      namespace: 'default',
      subnet: 'ovn-default',
      router: 'ovn-cluster',
      mac: `0a:58:0a:10:01:${(i + 2).toString(16).padStart(2, '0')}`,
      ips: [`10.16.1.${i + 2}`],
      cidrs: ['10.16.0.0/16'],
      gateways: ['10.16.0.1'],
    });
    c.set(
      { kind: 'Pod', namespace: 'default', name: pod },
      {
        rows: [{ table: 'switchPort', row: port }],
        contributions: podNodeMemberships(port.name, 'node-1', 'ovn-default', false),
      },
    );
  }
}

describe.skipIf(!requireOvn('committer on real NB'))('Committer on a real NB', () => {
  let cp: ControlPlane;
  const pods = Array.from({ length: 20 }, (_, i) => `web-${i}`);

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  async function run(podNames: readonly string[], before?: (be: OvnBackend) => Promise<void>) {
    const be = await OvnBackend.connect({ remotes: cp.nb.remote });
    await before?.(be);
    const rec = new Recording(be);
    const store = new DesiredState();
    const c = new Committer({ backend: rec, store, clock });
    const start = await c.start(() => fill(c, podNames));
    return { be, rec, c, start, store };
  }

  it('first start writes the cluster; a pod added later is one create and one mutate', async () => {
    const { rec, c, start, be, store } = await run(pods);
    expect(start.operations).toBeGreaterThan(pods.length);
    const port = podPortRow({
      pod: 'late',
      namespace: 'default',
      subnet: 'ovn-default',
      router: 'ovn-cluster',
      mac: '0a:58:0a:10:02:02',
      ips: ['10.16.2.2'],
      cidrs: ['10.16.0.0/16'],
      gateways: ['10.16.0.1'],
    });
    c.set(
      { kind: 'Pod', namespace: 'default', name: 'late' },
      {
        rows: [{ table: 'switchPort', row: port }],
        contributions: podNodeMemberships(port.name, 'node-1', 'ovn-default', false),
      },
    );
    await c.sync();
    expect(rec.plans.at(-1)).toEqual([
      { op: 'create', table: 'switchPort', key: 'late.default', row: port },
      { op: 'mutate', table: 'portGroup', key: 'node.node.1', insert: { ports: ['late.default'] } },
    ]);
    expect(plan(await be.read(), store.topology())).toEqual([]);
    const members = await nbctl(cp.nb.remote, '--bare', '--columns=ports', 'find', 'Port_Group', 'name=node.node.1');
    expect(members.trim().split(/\s+/)).toHaveLength(pods.length + 1);
    c.delete({ kind: 'Pod', namespace: 'default', name: 'late' });
    await c.sync();
    await c.close();
    await be.close();
  });

  it('a restart with nothing changed writes zero operations', async () => {
    const { rec, c, start, be } = await run(pods);
    expect(start.operations).toBe(0);
    expect(rec.plans).toEqual([]);
    await c.close();
    await be.close();
  });

  it('a restart removes an orphan row of ours, leaves a foreign row alone, and updates what changed meanwhile', async () => {
    await nbctl(cp.nb.remote, 'ls-add', 'not-ours');
    const { rec, c, start, be } = await run(pods.slice(1), async (be0) => {
      await be0.apply([
        {
          op: 'create',
          table: 'switch',
          key: 'orphan',
          row: { name: 'orphan', loadBalancers: [], otherConfig: {}, externalIds: {} },
        },
      ]);
    });
    // web-0 went away while the controller was down: its port and its membership go, the orphan switch goes.
    const ops = rec.plans.flat();
    expect(ops).toEqual(
      expect.arrayContaining([
        { op: 'mutate', table: 'portGroup', key: 'node.node.1', delete: { ports: ['web-0.default'] } },
        { op: 'delete', table: 'switchPort', key: 'web-0.default' },
        { op: 'delete', table: 'switch', key: 'orphan' },
      ]),
    );
    expect(start.operations).toBe(3);
    const switches = await nbColumn(cp.nb.remote, 'Logical_Switch', 'name');
    expect(switches.sort()).toEqual(['not-ours', 'ovn-default']);
    await c.close();
    await be.close();
  });
});
