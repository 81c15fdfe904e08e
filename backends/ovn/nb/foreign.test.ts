/**
 * Rows kovn does not own (created by ovn-nbctl, no vendor tag) are never
 * touched: they survive applies that create, update and delete kovn rows in
 * the same tables, they are absent from read(), and a name clash with one is
 * a typed error naming the table and the name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMatch } from '../../../model/match/index.ts';
import { type Topology, applyPlan, emptyTopology, plan } from '../../../model/topology/index.ts';
import { topologyOf } from '../../../model/topology/fixture.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { OvnBackendError } from './errors.ts';
import { isOwned } from './tables.ts';
import { nbctl, topologyDiff } from './testing.ts';

describe.skipIf(!requireOvn('ovn backend foreign rows'))('OvnBackend leaves foreign rows alone', () => {
  let cp: ControlPlane;
  let be: OvnBackend;
  const nb = (...args: string[]) => nbctl(cp.nb.remote, ...args);

  /** Every cached row without vendor=kovn, by table. */
  const foreignRows = () => {
    const snap = be.session.cache.snapshot();
    return Object.fromEntries(Object.entries(snap).map(([t, rows]) => [t, rows.filter((r) => !isOwned(r as never))]));
  };

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    await nb(
      'ls-add',
      'fls',
      '--',
      'lsp-add',
      'fls',
      'fp1',
      '--',
      'lsp-set-addresses',
      'fp1',
      '0a:00:00:00:00:01 10.0.0.1',
    );
    await nb('acl-add', 'fls', 'to-lport', '1000', 'ip4', 'drop');
    await nb(
      'lr-add',
      'flr',
      '--',
      'lr-nat-add',
      'flr',
      'snat',
      '172.18.0.2',
      '10.16.0.0/24',
      '--',
      'lr-route-add',
      'flr',
      '0.0.0.0/0',
      '100.64.0.1',
    );
    await nb('lb-add', 'flb', '10.96.0.10:80', '10.16.0.10:8080');
    await nb('pg-add', 'fpg', 'fp1', '--', 'create', 'Address_Set', 'name=fas', 'addresses=10.0.0.1');
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
  });
  afterAll(async () => {
    await be?.close();
    await cp?.stop();
  });

  it('read() shows none of them', async () => {
    expect(topologyDiff(await be.read(), emptyTopology())).toEqual([]);
  });

  it('they survive applies that create, update and delete kovn rows of the same tables', async () => {
    const before = foreignRows();
    const a = kovnTopology();
    await be.apply(plan(await be.read(), a));
    // Foreign members of kovn rows: a load balancer on kovn's switch, an ACL on kovn's port group.
    await nb('ls-lb-add', 'ls0', 'flb');
    await nb('--type=port-group', 'acl-add', 'pg0', 'to-lport', '900', 'ip6', 'drop');
    const b = edited(a);
    await be.apply(plan(await be.read(), b));
    expect(topologyDiff(await be.read(), b)).toEqual([]);
    expect(await nb('ls-lb-list', 'ls0')).toContain('flb');
    expect(await nb('--type=port-group', 'acl-list', 'pg0')).toContain('ip6');
    await be.apply(plan(await be.read(), emptyTopology()));
    expect(topologyDiff(await be.read(), emptyTopology())).toEqual([]);
    expect(foreignRows()).toEqual(before); // the foreign ACL on kovn's pg0 went with pg0, as OVN garbage-collects
    expect(await nb('ls-list')).toContain('fls');
    expect(await nb('acl-list', 'fls')).toMatch(/to-lport\s+1000 \(ip4\) drop/);
    expect(await nb('lr-nat-list', 'flr')).toContain('172.18.0.2');
    expect(await nb('lr-route-list', 'flr')).toContain('100.64.0.1');
    expect(await nb('lsp-list', 'fls')).toContain('fp1');
  });

  it('a name clash with a foreign row is a typed error naming the table and the name', async () => {
    const clash = topologyOf({ switch: [{ name: 'fls', loadBalancers: [], otherConfig: {}, externalIds: {} }] });
    const err = await be.apply(plan(await be.read(), clash)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvnBackendError);
    expect(err).toMatchObject({ code: 'name-clash', site: { nbTable: 'Logical_Switch', key: 'fls', op: 'create' } });
    expect((err as Error).message).toMatch(/Logical_Switch.*"fls".*kovn does not own/);
    const port = topologyOf({
      switch: [{ name: 'kls', loadBalancers: [], otherConfig: {}, externalIds: {} }],
      switchPort: [
        { name: 'fp1', switch: 'kls', type: '', addresses: [], portSecurity: [], options: {}, externalIds: {} },
      ],
    });
    const err2 = await be.apply(plan(await be.read(), port)).catch((e: unknown) => e);
    expect(err2).toMatchObject({ code: 'name-clash', site: { nbTable: 'Logical_Switch_Port', key: 'fp1' } });
    expect(await nb('lsp-get-ls', 'fp1')).toContain('(fls)');
    await be.apply(plan(await be.read(), emptyTopology())); // the switch of the first batch
  });
});

describe.skipIf(!requireOvn('ovn backend server errors'))('OvnBackend server errors', () => {
  let cp: ControlPlane;
  let be: OvnBackend;

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
  });
  afterAll(async () => {
    await be?.close();
    await cp?.stop();
  });

  it('a commit-time error names the plan operation, the model key and the NB table', async () => {
    const t = kovnTopology();
    await be.apply(plan(await be.read(), t));
    // A foreign switch holds kovn's port too: deleting the port now breaks referential integrity.
    const portUuid = be.session.cache.lookup('Logical_Switch_Port', 'name', 'p0')[0]!._uuid;
    await nbctl(cp.nb.remote, 'ls-add', 'other', '--', 'add', 'Logical_Switch', 'other', 'ports', portUuid);
    const gone = applyPlan(
      [
        { op: 'delete', table: 'switchPort', key: 'p0' },
        { op: 'update', table: 'portGroup', key: 'pg0', changes: { ports: [] } },
      ],
      t,
    );
    const err = await be.apply(plan(await be.read(), gone)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvnBackendError);
    expect(err).toMatchObject({
      code: 'server-error',
      site: { op: 'delete', modelTable: 'switchPort', key: 'p0', nbTable: 'Logical_Switch_Port' },
    });
    expect((err as Error).message).toMatch(
      /plan operation \d+ \(delete switchPort "p0"\) on NB Logical_Switch_Port: .*referential integrity/,
    );
    expect((err as OvnBackendError).cause).toBeInstanceOf(Error);
    expect(await nbctl(cp.nb.remote, 'lsp-list', 'ls0')).toContain('p0'); // nothing of that transaction happened
  });
});

/** kovn rows in the tables the foreign rows live in, some with the same keys on other parents. */
function kovnTopology(): Topology {
  return topologyOf({
    loadBalancer: [
      { name: 'lb0', vips: { '10.96.0.10:80': '10.16.0.11:8080' }, selectionFields: [], options: {}, externalIds: {} },
    ],
    switch: [{ name: 'ls0', loadBalancers: ['lb0'], otherConfig: {}, externalIds: {} }],
    router: [{ name: 'lr0', options: {}, loadBalancers: [], externalIds: {} }],
    switchPort: [
      {
        name: 'p0',
        switch: 'ls0',
        type: '',
        addresses: ['0a:00:00:00:00:02 10.0.0.2'],
        portSecurity: [],
        options: {},
        externalIds: {},
      },
    ],
    portGroup: [{ name: 'pg0', ports: ['p0'], externalIds: {} }],
    addressSet: [{ name: 'as0', addresses: ['10.0.0.1'], externalIds: {} }],
    acl: [
      {
        attachTo: { kind: 'switch', name: 'ls0' },
        direction: 'to-lport',
        priority: 1000,
        match: parseMatch('ip4'),
        action: 'drop',
        log: false,
        options: {},
        externalIds: {},
      },
    ],
    nat: [
      {
        router: 'lr0',
        type: 'snat',
        externalIp: '172.18.0.2',
        logicalIp: '10.16.0.0/24',
        options: {},
        externalIds: {},
      },
    ],
    staticRoute: [
      { router: 'lr0', ipPrefix: '0.0.0.0/0', nexthop: '100.64.0.1', routeTable: '', options: {}, externalIds: {} },
    ],
  });
}

function edited(t: Topology): Topology {
  return applyPlan(
    [
      {
        op: 'update',
        table: 'switch',
        key: 'ls0',
        changes: { loadBalancers: [], otherConfig: { subnet: '10.0.0.0/24' } },
      },
      { op: 'update', table: 'portGroup', key: 'pg0', changes: { ports: [], externalIds: { np: 'x' } } },
      { op: 'delete', table: 'acl', key: [...t.acl.keys()][0]! },
    ],
    t,
  );
}
