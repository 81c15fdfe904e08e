/**
 * OvnBackend against a real NB ovsdb-server: every table and column type the
 * model uses survives apply → read, and ovn-nbctl sees what we wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printMatch } from '../../../model/match/index.ts';
import {
  TABLE_ORDER,
  type Topology,
  applyPlan,
  emptyTopology,
  plan,
  planSummary,
} from '../../../model/topology/index.ts';
import { type ControlPlane, requireOvn, startControlPlane } from '../control-plane/index.ts';
import { OvnBackend } from './backend.ts';
import { OvnBackendError } from './errors.ts';
import { nbColumn, nbctl, richTopology, topologyDiff } from './testing.ts';

describe.skipIf(!requireOvn('ovn backend round trip'))('OvnBackend round trip', () => {
  let cp: ControlPlane;
  let be: OvnBackend;
  const desired = richTopology();

  beforeAll(async () => {
    cp = await startControlPlane({ northd: false });
    be = await OvnBackend.connect({ remotes: cp.nb.remote });
  });
  afterAll(async () => {
    await be?.close();
    await cp?.stop();
  });

  it('applies a topology using every table and column type, and read() gives it back', async () => {
    const ops = plan(await be.read(), desired);
    const result = await be.apply(ops, { label: 'round trip' });
    expect(result).toMatchObject({ operations: ops.length, transactions: 1 });
    const back = await be.read();
    expect(topologyDiff(back, desired)).toEqual([]);
    expect(plan(back, desired)).toEqual([]);
    for (const table of TABLE_ORDER)
      expect([...back[table].keys()].sort(), table).toEqual([...desired[table].keys()].sort());
  });

  it('ovn-nbctl lists the rows as written', async () => {
    const remote = cp.nb.remote;
    const matches = await nbColumn(remote, 'ACL', 'match');
    expect(matches.sort()).toEqual([...desired.acl.values()].map((a) => printMatch(a.match)).sort());
    expect(await nbctl(remote, '--bare', '--columns=addresses', 'find', 'Logical_Switch_Port', 'name=vm-1')).toContain(
      '0a:58:0a:11:00:0a 10.17.0.10',
    );
    expect(
      await nbctl(remote, '--bare', '--columns=tag_request', 'find', 'Logical_Switch_Port', 'name=ln-ls1'),
    ).toContain('100');
    expect(
      await nbctl(remote, '--bare', '--columns=parent_name', 'find', 'Logical_Switch_Port', 'name=vm-1-c1'),
    ).toContain('vm-1');
    expect((await nbColumn(remote, 'NAT', 'type')).sort()).toEqual(['dnat', 'dnat_and_snat', 'snat']);
    expect(await nbctl(remote, 'lb-list')).toMatch(/lb-udp\s+udp\s+10\.96\.0\.53:53\s+10\.16\.0\.10:53/);
    expect(await nbctl(remote, '--bare', '--columns=selection_fields', 'find', 'Load_Balancer', 'name=lb-udp')).toMatch(
      /ip_dst ip_src/,
    );
    expect(await nbctl(remote, 'lr-route-list', 'lr0')).toMatch(/10\.16\.0\.10\s+100\.65\.0\.2 src-ip lr0-lr1/);
    expect(await nbctl(remote, 'lr-policy-list', 'lr0')).toMatch(
      /29000\s+ip4\.src == 10\.17\.0\.10\s+reroute\s+100\.65\.0\.2, 100\.65\.0\.3/,
    );
    const qos = await nbctl(remote, 'qos-list', 'ls1');
    expect(qos).toMatch(/to-lport\s+200 \(ip4\.dst == 10\.17\.0\.10\) rate=10000 burst=1000/);
    // Two rules of one match are two rows.
    expect(qos).toMatch(/to-lport\s+200 \(ip4\.dst == 10\.17\.0\.10\) dscp=46/);
    expect(await nbctl(remote, 'lsp-get-dhcpv4-options', 'web-0.default')).toMatch(/10\.16\.0\.0\/24/);
    expect(await nbctl(remote, 'lrp-get-gateway-chassis', 'lr0-ls1')).toMatch(
      /lr0-ls1-node-1\s+2\s+lr0-ls1-node-2\s+1/,
    );
    expect(await nbctl(remote, 'lsp-get-ls', 'vm-1')).toContain('(ls1)');
    expect(await nbctl(remote, 'show')).toContain('router-port: lr0-ls1');
    // Owner tags on every row, the key where NB has no name, the model's own vendor kept aside.
    for (const table of [
      'Logical_Switch',
      'Logical_Switch_Port',
      'Logical_Router',
      'Logical_Router_Port',
      'ACL',
      'NAT',
      'Logical_Router_Static_Route',
      'Logical_Router_Policy',
      'QoS',
      'DHCP_Options',
      'Load_Balancer',
      'Address_Set',
      'Port_Group',
      'Gateway_Chassis',
    ]) {
      for (const ids of await nbColumn(remote, table, 'external_ids')) expect(ids, table).toContain('vendor=kovn');
    }
    expect(await nbctl(remote, '--bare', '--columns=external_ids', 'find', 'Load_Balancer', 'name=lb-udp')).toContain(
      'kovn-vendor=someone-else',
    );
    const aclIds = await nbColumn(remote, 'ACL', 'external_ids');
    expect(aclIds.filter((s) => s.includes('kovn-key='))).toHaveLength(desired.acl.size);
    expect(aclIds.filter((s) => s.includes('kovn-explicit=label'))).toHaveLength(1);
  });

  it('updates round-trip: moves, unset optionals, reference sets, gateway chassis', async () => {
    const edited = edit(await be.read());
    const ops = plan(await be.read(), edited);
    expect(planSummary(ops)).toMatchObject({
      switchPort: { update: 2 },
      routerPort: { update: 1 },
      switch: { update: 1 },
    });
    await be.apply(ops, { label: 'edits' });
    const back = await be.read();
    expect(topologyDiff(back, edited)).toEqual([]);
    expect(plan(back, edited)).toEqual([]);
    expect(await nbctl(cp.nb.remote, 'lsp-get-ls', 'dyn')).toContain('(ls0)');
    expect(await nbctl(cp.nb.remote, 'lrp-get-gateway-chassis', 'lr0-ls1')).toMatch(
      /lr0-ls1-node-2\s+5\s+lr0-ls1-node-3\s+3/,
    );
    // garbage-collected
    expect(await nbColumn(cp.nb.remote, 'Gateway_Chassis', 'name')).not.toContain('lr0-ls1-node-1');
  });

  it('a plan referencing a row kovn does not have fails with a typed error naming the operation', async () => {
    const t = await be.read();
    const port = t.switchPort.get('vm-1')!;
    const bad = plan(
      t,
      applyPlan([{ op: 'create', table: 'switchPort', key: 'ghost', row: { ...port, name: 'ghost' } }], t),
    );
    const broken = bad.map((o) =>
      o.op === 'create' ? { ...o, row: { ...o.row, switch: 'no-such-switch' } } : o,
    ) as typeof bad;
    const err = await be.apply(broken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvnBackendError);
    expect(err).toMatchObject({
      code: 'missing-row',
      site: { op: 'create', modelTable: 'switchPort', key: 'ghost', nbTable: 'Logical_Switch_Port', planIndex: 0 },
    });
    expect((err as Error).message).toMatch(/plan operation 0 \(create switchPort "ghost"\).*switch "no-such-switch"/);
  });

  it('deleting everything leaves NB empty', async () => {
    await be.apply(plan(await be.read(), emptyTopology()));
    expect(topologyDiff(await be.read(), emptyTopology())).toEqual([]);
    for (const table of [
      'Logical_Switch',
      'Logical_Router',
      'ACL',
      'NAT',
      'Gateway_Chassis',
      'Logical_Switch_Port',
      'DHCP_Options',
      'Load_Balancer',
    ]) {
      expect(await nbColumn(cp.nb.remote, table, '_uuid'), table).toEqual([]);
    }
  });
});

/** Edits touching what an update must handle. */
function edit(t: Topology): Topology {
  const acl = [...t.acl.values()].find((a) => a.label === 7)!;
  return applyPlan(
    [
      {
        op: 'update',
        table: 'switchPort',
        key: 'dyn',
        changes: { switch: 'ls0', addresses: ['0a:58:0a:10:00:99 10.16.0.99'] },
      },
      {
        op: 'update',
        table: 'switchPort',
        key: 'vm-1',
        changes: { enabled: undefined, externalIds: {}, portSecurity: ['0a:58:0a:11:00:0a 10.17.0.10'] },
      },
      {
        op: 'update',
        table: 'routerPort',
        key: 'lr0-ls1',
        changes: {
          gatewayChassis: [
            { chassisName: 'node-2', priority: 5 },
            { chassisName: 'node-3', priority: 3 },
          ],
          ipv6RaConfigs: undefined,
          enabled: true,
        },
      },
      {
        op: 'update',
        table: 'switch',
        key: 'ls1',
        changes: { loadBalancers: ['lb0'], otherConfig: { subnet: '10.17.0.0/24' } },
      },
      {
        op: 'update',
        table: 'acl',
        key: [...t.acl.entries()].find(([, a]) => a === acl)![0],
        changes: { label: undefined, severity: undefined, meter: undefined, name: undefined },
      },
      {
        // Action and bandwidth are key columns: an update changes the rest.
        op: 'update',
        table: 'qos',
        key: [...t.qos.keys()].find((k) => k.startsWith('ls1'))!,
        changes: { externalIds: { owner: 'kovn' } },
      },
    ],
    t,
  );
}
