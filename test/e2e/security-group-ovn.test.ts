/**
 * What the SecurityGroup and IPPool address set scenarios leave in a real NB
 * (ovn-nbctl's view, after northd accepted it): Kube-OVN's port group and
 * address set names, priorities, matches and external_ids
 * (pkg/ovs/ovn-nb-acl.go, pkg/controller/ippool.go), beside the verdicts the
 * shipped-scenario test already checks on ovn-trace.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { nbColumn, nbctl } from '../../backends/ovn/nb/testing.ts';
import { loadScenario } from '../../scenarios/load.ts';
import { OvnWorld } from '../../scenarios/ovn-world.ts';
import { runScenario } from '../../scenarios/run.ts';

const SCENARIOS = join(import.meta.dirname, '..', '..', 'scenarios');

/** `ovn-nbctl acl-list <pg>` lines, spaces collapsed. */
const aclList = async (remote: string, pg: string) =>
  (await nbctl(remote, 'acl-list', pg))
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '');

async function withScenario<T>(file: string, f: (remote: string) => Promise<T>): Promise<T> {
  const world = await OvnWorld.start();
  try {
    const r = await runScenario(loadScenario(join(SCENARIOS, file)), { world });
    expect(r.results.filter((x) => !x.ok)).toEqual([]);
    return await f(world.nbRemote);
  } finally {
    await world.close();
  }
}

describe.skipIf(!requireOvn('security groups on a real NB'))(
  'security groups and pool address sets on a real NB',
  () => {
    it("security-group.yaml: Kube-OVN's port groups, address sets and ACLs", { timeout: 120_000 }, async () => {
      await withScenario('security-group.yaml', async (nb) => {
        expect(await nbColumn(nb, 'Port_Group', 'name')).toEqual(
          expect.arrayContaining(['ovn.sg.web', 'ovn.sg.db', 'ovn.sg.kubeovn_deny_all']),
        );
        expect(await nbColumn(nb, 'Address_Set', 'name')).toEqual(
          expect.arrayContaining([
            'ovn.sg.web.associated.v4',
            'ovn.sg.web.associated.v6',
            'ovn.sg.db.associated.v4',
            'ovn.sg.db.associated.v6',
          ]),
        );
        const deny = await aclList(nb, 'ovn.sg.kubeovn_deny_all');
        expect(deny).toEqual([
          'from-lport 2003 (inport == @ovn.sg.kubeovn_deny_all && ip) drop',
          'to-lport 2003 (outport == @ovn.sg.kubeovn_deny_all && ip) drop',
        ]);
        const web = await aclList(nb, 'ovn.sg.web');
        expect(web).toEqual(
          expect.arrayContaining([
            'from-lport 18384 (inport == @ovn.sg.web && ip4 && ip4.dst == 0.0.0.0/0) allow-related',
            'to-lport 18479 (outport == @ovn.sg.web && ip4 && ip4.src == 10.16.0.66 && 1 <= tcp.dst <= 65535) drop',
            'to-lport 18474 (outport == @ovn.sg.web && ip4 && ip4.src == 10.16.0.0/16 && 80 <= tcp.dst <= 80) allow-related',
            'to-lport 2004 (outport == @ovn.sg.web && ip4 && ip4.src == $ovn.sg.web.associated.v4) allow-related',
            'to-lport 2005 (outport == @ovn.sg.web && arp) allow-related',
          ]),
        );
        expect(web).toHaveLength(17);
        expect(await aclList(nb, 'ovn.sg.db')).toContain(
          'to-lport 18483 (outport == @ovn.sg.db && ip4 && ip4.src == $ovn.sg.web.associated.v4 && 5432 <= tcp.dst <= 5432) allow-related',
        );
        const ids = await nbctl(nb, '--bare', '--columns=external_ids', 'find', 'Port_Group', 'name=ovn.sg.web');
        expect(ids).toContain('sg=web');
        expect(ids).toContain('type=security_group');
      });
    });

    it('ippool-address-set.yaml: the pool address sets, named after the pools', { timeout: 120_000 }, async () => {
      await withScenario('ippool-address-set.yaml', async (nb) => {
        const row = (name: string) =>
          nbctl(nb, '--bare', '--columns=addresses,external_ids', 'find', 'Address_Set', `name=${name}`);
        expect(await row('ops.pool')).toContain('10.16.0.200/30');
        expect(await row('ops.pool')).toContain('ippool=ops-pool');
        expect((await row('t.quarantine')).split(/\s+/)).toEqual(
          expect.arrayContaining(['10.90.0.100', '10.90.0.101', 'ippool=t-quarantine']),
        );
      });
    });
  },
);
