/**
 * Drift on a real NB: rows of ours changed or deleted behind kovn's back
 * (by ovn-nbctl, as an operator would) are put back by the running
 * committer, without a restart, and rows of other owners stay as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, requireOvn, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/backend.ts';
import { nbctl } from '../../backends/ovn/nb/testing.ts';
import type { LoadBalancer, LogicalSwitchPort } from '../../model/topology/index.ts';
import { plan } from '../../model/topology/index.ts';
import { type CommitClock, Committer } from '../../controller/desired/commit.ts';
import { DesiredState } from '../../controller/desired/store.ts';

/** Real timers: the committer reacts to NB changes on its own, no test drives it. */
const clock: CommitClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

const port = (i: number): LogicalSwitchPort => ({
  name: `p${i}`,
  switch: 'ovn-default',
  type: '',
  addresses: [`0a:58:0a:10:00:${(i + 10).toString(16)} 10.16.0.${i + 10}`],
  portSecurity: [],
  options: {},
  externalIds: { pod: `default/p${i}` },
});

const lb: LoadBalancer = {
  name: 'svc',
  vips: { '10.96.0.10:80': '10.16.0.10:8080,10.16.0.11:8080' },
  selectionFields: [],
  options: {},
  externalIds: {},
};

/** How long a repair may take before the test calls it missing (a bound on waiting, not a speed check). */
const REPAIR_WAIT_MS = 15_000;

describe.skipIf(!requireOvn('drift repair on real NB'))('drift repair on a real NB', () => {
  let cp: ControlPlane;
  let be: OvnBackend;
  let c: Committer;
  let store: DesiredState;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
    store = new DesiredState();
    c = new Committer({ backend: be, store, clock });
    await c.start(() => {
      c.set(
        { kind: 'Subnet', name: 'ovn-default' },
        {
          rows: [
            { table: 'switch', row: { name: 'ovn-default', loadBalancers: ['svc'], otherConfig: {}, externalIds: {} } },
            { table: 'loadBalancer', row: lb },
            { table: 'switch', row: { name: 'other', loadBalancers: [], otherConfig: {}, externalIds: {} } },
          ],
        },
      );
      c.set(
        { kind: 'Vpc', name: 'r' },
        {
          rows: [
            { table: 'router', row: { name: 'r', options: {}, loadBalancers: [], externalIds: {} } },
            {
              table: 'routerPort',
              row: {
                name: 'r-gw',
                router: 'r',
                mac: '0a:58:64:40:00:01',
                networks: ['100.64.0.1/16'],
                gatewayChassis: [{ chassisName: 'ch1', priority: 10 }],
                options: {},
                externalIds: {},
              },
            },
          ],
        },
      );
      for (let i = 0; i < 5; i++)
        c.set({ kind: 'Pod', namespace: 'default', name: `p${i}` }, { rows: [{ table: 'switchPort', row: port(i) }] });
    });
  });
  afterAll(async () => {
    await c?.close();
    await be?.close();
    await cp?.stop();
  });

  const uuidOf = async (name: string) =>
    (await nbctl(cp.nb.remote, '--bare', '--columns=_uuid', 'find', 'Logical_Switch_Port', `name=${name}`)).trim();

  /** Resolves once `seen` held at some change and `now` holds; rejects after REPAIR_WAIT_MS. */
  function after(seen: () => boolean, now: () => boolean, what: string): Promise<void> {
    let was = seen();
    return be.session.cache.waitFor(() => (was ||= seen()) && now(), { timeoutMs: REPAIR_WAIT_MS, what });
  }
  const inStep = () => plan(be.readCached(), store.topology()).length === 0;

  it('a port of ours deleted by hand comes back (a new row) while the controller runs', async () => {
    const before = await uuidOf('p1');
    expect(before).not.toBe('');
    const back = after(
      () => be.session.cache.lookup('Logical_Switch_Port', 'name', 'p1').length === 0,
      () => inStep() && be.session.cache.lookup('Logical_Switch_Port', 'name', 'p1').length === 1,
      'p1 deleted and put back',
    );
    await nbctl(cp.nb.remote, 'lsp-del', 'p1');
    await back;
    const now = await uuidOf('p1');
    expect(now).not.toBe('');
    expect(now).not.toBe(before);
  });

  it('a port of ours changed by hand is put back', async () => {
    const addresses = () => be.session.cache.lookup('Logical_Switch_Port', 'name', 'p2')[0]?.addresses;
    const back = after(
      () => addresses()?.[0] === '00:00:00:00:00:99 10.16.0.99',
      () => inStep() && addresses()?.[0] === port(2).addresses[0],
      'p2 changed and put back',
    );
    await nbctl(cp.nb.remote, 'lsp-set-addresses', 'p2', '00:00:00:00:00:99 10.16.0.99');
    await back;
    expect(await nbctl(cp.nb.remote, 'lsp-get-addresses', 'p2')).toBe(`${port(2).addresses[0]}\n`);
  });

  it('a port of ours moved by hand to another switch of ours is moved back (the port itself unchanged)', async () => {
    const switchOf = (name: string) => {
      const uuid = be.session.cache.lookup('Logical_Switch_Port', 'name', 'p4')[0]?._uuid;
      const sw = be.session.cache.lookup('Logical_Switch', 'name', name)[0];
      return uuid !== undefined && (sw?.ports ?? []).includes(uuid as never);
    };
    const uuid = await uuidOf('p4');
    const back = after(
      () => switchOf('other'),
      () => inStep() && switchOf('ovn-default'),
      'p4 moved and moved back',
    );
    await nbctl(
      cp.nb.remote,
      '--',
      'remove',
      'Logical_Switch',
      'ovn-default',
      'ports',
      uuid,
      '--',
      'add',
      'Logical_Switch',
      'other',
      'ports',
      uuid,
    );
    await back;
    expect(await nbctl(cp.nb.remote, 'lsp-get-ls', 'p4')).toContain('ovn-default');
  });

  it("a gateway chassis priority changed by hand is put back (it is part of its router port's row)", async () => {
    const priority = () => be.session.cache.lookup('Gateway_Chassis', 'name', 'r-gw-ch1')[0]?.priority;
    const uuid = (
      await nbctl(cp.nb.remote, '--bare', '--columns=_uuid', 'find', 'Gateway_Chassis', 'chassis_name=ch1')
    ).trim();
    expect(uuid).not.toBe('');
    const back = after(
      () => priority() === 5,
      () => inStep() && priority() === 10,
      'gateway chassis put back',
    );
    await nbctl(cp.nb.remote, 'set', 'Gateway_Chassis', uuid, 'priority=5');
    await back;
    expect((await nbctl(cp.nb.remote, '--bare', '--columns=priority', 'list', 'Gateway_Chassis', uuid)).trim()).toBe(
      '10',
    );
  });

  it('a load balancer deleted by hand comes back, and so does the reference to it NB took out of our switch', async () => {
    const lbs = () => be.session.cache.lookup('Load_Balancer', 'name', 'svc');
    const referenced = () => {
      const sw = be.session.cache.lookup('Logical_Switch', 'name', 'ovn-default')[0];
      return lbs().length === 1 && (sw?.load_balancer ?? []).includes(lbs()[0]?._uuid as never);
    };
    expect(referenced()).toBe(true);
    const back = after(
      () => lbs().length === 0,
      () => inStep() && referenced(),
      'svc deleted and put back',
    );
    await nbctl(cp.nb.remote, 'lb-del', 'svc');
    await back;
    expect(await nbctl(cp.nb.remote, 'ls-lb-list', 'ovn-default')).toContain('svc');
  });

  it('rows of other owners, on our switch and beside it, are left as they are while ours are repaired', async () => {
    await nbctl(cp.nb.remote, 'ls-add', 'not-ours');
    await nbctl(cp.nb.remote, 'lsp-add', 'ovn-default', 'theirs', '--', 'lsp-set-addresses', 'theirs', 'unknown');
    await nbctl(
      cp.nb.remote,
      'lsp-add',
      'not-ours',
      'other-vendor',
      '--',
      'set',
      'Logical_Switch_Port',
      'other-vendor',
      'external_ids:vendor=other',
    );
    const foreign = async () =>
      [
        await nbctl(cp.nb.remote, 'list', 'Logical_Switch', 'not-ours'),
        await nbctl(cp.nb.remote, 'list', 'Logical_Switch_Port', 'theirs'),
        await nbctl(cp.nb.remote, 'list', 'Logical_Switch_Port', 'other-vendor'),
      ].join('\n');
    const before = await foreign();
    const p3 = () => be.session.cache.lookup('Logical_Switch_Port', 'name', 'p3').length;
    const back = after(
      () => p3() === 0,
      () => inStep() && p3() === 1,
      'p3 deleted and put back',
    );
    await nbctl(cp.nb.remote, 'lsp-del', 'p3');
    await back;
    expect(await foreign()).toBe(before);
    const ports = await nbctl(cp.nb.remote, '--bare', '--columns=name', 'find', 'Logical_Switch_Port');
    expect(
      ports
        .split('\n')
        .filter((s) => s !== '')
        .sort(),
    ).toEqual(['other-vendor', 'p0', 'p1', 'p2', 'p3', 'p4', 'theirs']);
  });
});
