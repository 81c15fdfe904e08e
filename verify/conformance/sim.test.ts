import { describe, expect, it } from 'vitest';
import { buildTopology, type Plan, PlanError, plan } from '../../model/topology/index.ts';
import { conformanceSuite } from './suite.ts';
import { SimBackend } from '../../backends/sim/sim-backend.ts';

// Every conformance probe runs on the simulator: none is unsupported.
conformanceSuite('sim', async () => {
  const backend = new SimBackend();
  return { backend, close: () => backend.close() };
});

describe('SimBackend applies a plan in the size of the plan', () => {
  const { topology: t } = buildTopology({
    switch: [{ name: 'ls', loadBalancers: [], otherConfig: {}, externalIds: {} }],
    portGroup: [{ name: 'pg', ports: [], externalIds: {} }],
  });
  const port = (n: number) => ({
    name: `p${n}`,
    switch: 'ls',
    type: '' as const,
    addresses: [],
    portSecurity: [],
    options: {},
    externalIds: {},
  });

  it('copies no table for a stream of changes, reads included; a table a compiled network holds once', async () => {
    const sim = new SimBackend({ topology: t });
    const add = (n: number): Plan => [
      { op: 'create', table: 'switchPort', key: `p${n}`, row: port(n) },
      { op: 'mutate', table: 'portGroup', key: 'pg', insert: { ports: [`p${n}`] } },
    ];
    // The caller's own tables are copied once (they are the caller's), then never again.
    await sim.apply(add(0));
    const first = sim.rowsCopied;
    for (let n = 1; n < 200; n++) await sim.apply(add(n));
    expect(sim.rowsCopied).toBe(first);
    const seen = await sim.read();
    expect(seen.switchPort.size).toBe(200);
    expect(seen.portGroup.get('pg')?.ports).toHaveLength(200);
    // read() copied what it handed out (200 ports, one group, one switch), then and only then.
    const afterRead = sim.rowsCopied;
    expect(afterRead).toBe(first + 200 + 1 + 1);
    await sim.apply(add(200));
    expect(sim.rowsCopied).toBe(afterRead);
    // What read() handed out does not change under its holder.
    expect(seen.switchPort.size).toBe(200);
    // A compiled network keeps the tables it was compiled from: the next change copies the ones it writes.
    const net = sim.network();
    expect(net.ports.has('p200')).toBe(true);
    const beforeWrite = sim.rowsCopied;
    await sim.apply(add(201));
    expect(sim.rowsCopied).toBe(beforeWrite + 201 + 1);
    expect(net.topology.switchPort.size).toBe(201);
    expect(sim.network().topology.switchPort.size).toBe(202);
  });

  it('a plan with a bad operation changes nothing', async () => {
    const sim = new SimBackend({ topology: t });
    const bad: Plan = [
      { op: 'create', table: 'switchPort', key: 'p1', row: port(1) },
      { op: 'mutate', table: 'portGroup', key: 'no-such-group', insert: { ports: ['p1'] } },
    ];
    await expect(sim.apply(bad)).rejects.toThrow(PlanError);
    expect(plan(await sim.read(), t)).toEqual([]);
  });
});

describe('SimBackend recompiles after a change what the change touched', () => {
  it('an address set changed by a mutate is read anew; one left alone keeps its parse', async () => {
    const { udpPacket } = await import('../../model/packet/build.ts');
    const { MAC, twoSubnets } = await import('../../model/topology/index.ts');
    const t = twoSubnets()
      .addressSet('blocked', ['10.0.9.9'])
      .addressSet('other', ['10.0.8.8'])
      .acl('sw1', 'to-lport', 1000, 'ip4.src == $blocked', 'drop')
      .acl('sw1', 'to-lport', 999, 'ip4.src == $other', 'drop')
      .build();
    const sim = new SimBackend({ topology: t });
    const probe = () =>
      sim.probe({
        inport: 'q1',
        packet: udpPacket({
          ethSrc: MAC.q1,
          ethDst: MAC.r1sw2,
          src: '10.0.2.11',
          dst: '10.0.1.11',
          sport: 1,
          dport: 2,
        }),
      });
    expect((await probe()).verdict).toBe('delivered');
    const otherBefore = sim.network().topology.addressSet.get('other')!.addresses;
    await sim.apply([{ op: 'mutate', table: 'addressSet', key: 'blocked', insert: { addresses: ['10.0.2.11'] } }]);
    expect((await probe()).verdict).toBe('dropped');
    // The untouched set is the same array, so its parse is reused.
    expect(sim.network().topology.addressSet.get('other')!.addresses).toBe(otherBefore);
    await sim.apply([{ op: 'mutate', table: 'addressSet', key: 'blocked', delete: { addresses: ['10.0.2.11'] } }]);
    expect((await probe()).verdict).toBe('delivered');
  });

  it('recompiles the ACLs whose address set changed and reuses every other one', async () => {
    const { aclRules } = await import('../../sim/compile/switch.ts');
    const { twoSubnets } = await import('../../model/topology/index.ts');
    const t = twoSubnets()
      .addressSet('a', ['10.0.9.1'])
      .addressSet('b', ['10.0.9.2'])
      .portGroup('pg', ['p1'])
      .acl('sw1', 'to-lport', 1000, 'ip4.src == $a', 'drop')
      .acl('sw1', 'to-lport', 999, 'ip4.src == $b', 'drop')
      .acl('pg', 'to-lport', 998, 'outport == @pg && udp.dst == 53', 'drop')
      .build();
    const sim = new SimBackend({ topology: t });
    sim.network();
    const before = { ...aclRules.stats };
    await sim.apply([{ op: 'mutate', table: 'addressSet', key: 'a', insert: { addresses: ['10.0.9.3'] } }]);
    sim.network();
    expect(aclRules.stats.compiled - before.compiled).toBe(1);
    expect(aclRules.stats.reused - before.reused).toBe(2);
    // A port joining the group changes that ACL's members on sw1: it alone is compiled again.
    const mid = { ...aclRules.stats };
    await sim.apply([{ op: 'mutate', table: 'portGroup', key: 'pg', insert: { ports: ['p2'] } }]);
    const net = sim.network();
    expect(aclRules.stats.compiled - mid.compiled).toBe(1);
    expect([...net.switches.get('sw1')!.acls.out.byOutport.keys()].sort()).toEqual(['p1', 'p2']);
  });
});
