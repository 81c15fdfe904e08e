/**
 * SecurityGroup end to end on the simulator: the shipped scenario's probes
 * flip without the group or without the pod annotation (so the scenario
 * cannot pass by accident); the NB rows are Kube-OVN's (names, priorities,
 * matches of pkg/ovs/ovn-nb-acl.go); a group that does not translate fails
 * closed, is reported on the pods naming it, and says so in its status.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimBackend } from '../../backends/sim/index.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { printMatch } from '../../model/match/index.ts';
import type { Topology } from '../../model/topology/index.ts';
import { type LoadedScenario, loadScenario } from '../../scenarios/load.ts';
import { runScenario, SimWorld } from '../../scenarios/run.ts';

const FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'security-group.yaml');

const nameOf = (o: { object: Readonly<Record<string, unknown>> }) => (o.object.metadata as { name: string }).name;

/** The scenario with its objects changed by `edit` (undefined drops one). */
function edited(
  s: LoadedScenario,
  edit: (o: LoadedScenario['objects'][number]) => LoadedScenario['objects'][number] | undefined,
): LoadedScenario {
  return { ...s, objects: s.objects.flatMap((o) => edit(o) ?? []) };
}

async function run(s: LoadedScenario) {
  const world = new SimWorld();
  const r = await runScenario(s, { world });
  const t = await world.backend.read();
  await world.close();
  return { r, t };
}

const verdict = (r: Awaited<ReturnType<typeof run>>['r'], from: string, to: string, port?: number) =>
  r.results.find((x) => x.from === from && x.to === to && x.port === port)?.allowed;

/** Port-group ACLs of `pg` as `direction priority action match`. */
function aclsOf(t: Topology, pg: string): string[] {
  return [...t.acl.values()]
    .filter((a) => a.attachTo.kind === 'port-group' && a.attachTo.name === pg)
    .map((a) => `${a.direction} ${a.priority} ${a.action} ${printMatch(a.match)}`)
    .sort();
}

describe('SecurityGroup (scenarios/security-group.yaml)', () => {
  const s = loadScenario(FILE);

  it('every probe as expected with the groups; client -> web-1 TCP/8080 flips without group web', async () => {
    const withIt = await run(s);
    expect(withIt.r.results.filter((x) => !x.ok)).toEqual([]);
    expect(verdict(withIt.r, 'default/client', 'default/web-1', 8080)).toBe(false);
    const without = await run(edited(s, (o) => (o.kind === 'SecurityGroup' && nameOf(o) === 'web' ? undefined : o)));
    expect(verdict(without.r, 'default/client', 'default/web-1', 8080)).toBe(true);
    // db's rule names group web, which is gone: db fails closed, and is reported.
    expect(without.r.warnings.map((w) => [w.code, w.kind, w.name, w.field])).toEqual([
      ['InvalidSecurityGroup', 'SecurityGroup', 'db', 'spec.ingressRules[0].remoteSecurityGroup'],
    ]);
    expect(verdict(without.r, 'default/web-1', 'default/db', 5432)).toBe(false);
  });

  it('client -> web-1 TCP/8080 flips without the pod annotation ovn.kubernetes.io/security_groups', async () => {
    const without = await run(
      edited(s, (o) => {
        if (o.kind !== 'Pod' || nameOf(o) !== 'web-1') return o;
        const metadata = { ...(o.object.metadata as Record<string, unknown>), annotations: {} };
        return { ...o, object: { ...o.object, metadata } };
      }),
    );
    expect(verdict(without.r, 'default/client', 'default/web-1', 8080)).toBe(true);
    expect(verdict(without.r, 'default/client', 'default/web-2', 8080)).toBeUndefined();
  });

  it("writes Kube-OVN's port groups, address sets and ACLs", async () => {
    const { t } = await run(s);
    const pg = (n: string) => t.portGroup.get(n);
    expect(pg('ovn.sg.web')?.ports.slice().sort()).toEqual(['web-1.default', 'web-2.default']);
    expect(pg('ovn.sg.web')?.externalIds).toMatchObject({ type: 'security_group', sg: 'web' });
    expect(pg('ovn.sg.db')?.ports).toEqual(['db.default']);
    // ghost names a group that does not exist: not in the deny-all group.
    expect(pg('ovn.sg.kubeovn_deny_all')?.ports.slice().sort()).toEqual([
      'db.default',
      'web-1.default',
      'web-2.default',
    ]);
    expect(t.addressSet.get('ovn.sg.web.associated.v4')?.addresses.length).toBe(2);
    expect(t.addressSet.get('ovn.sg.web.associated.v4')?.externalIds).toMatchObject({ sg: 'web' });
    expect(t.addressSet.get('ovn.sg.web.associated.v6')?.addresses).toEqual([]);
    expect(aclsOf(t, 'ovn.sg.kubeovn_deny_all')).toEqual([
      'from-lport 2003 drop inport == @ovn.sg.kubeovn_deny_all && ip',
      'to-lport 2003 drop outport == @ovn.sg.kubeovn_deny_all && ip',
    ]);
    expect(aclsOf(t, 'ovn.sg.web')).toEqual(
      [
        'from-lport 18384 allow-related inport == @ovn.sg.web && ip4 && ip4.dst == 0.0.0.0/0',
        'from-lport 2004 allow-related inport == @ovn.sg.web && ip4 && ip4.dst == $ovn.sg.web.associated.v4',
        'from-lport 2004 allow-related inport == @ovn.sg.web && ip6 && ip6.dst == $ovn.sg.web.associated.v6',
        'from-lport 2005 allow-related inport == @ovn.sg.web && arp',
        'from-lport 2005 allow-related inport == @ovn.sg.web && icmp6.type == {130, 133, 135, 136} && icmp6.code == 0 && ip.ttl == 255',
        'from-lport 2005 allow-related inport == @ovn.sg.web && ip.proto == 112',
        'from-lport 2005 allow-related inport == @ovn.sg.web && udp.src == 546 && udp.dst == 547 && ip6',
        'from-lport 2005 allow-related inport == @ovn.sg.web && udp.src == 68 && udp.dst == 67 && ip4',
        'to-lport 18474 allow-related outport == @ovn.sg.web && ip4 && ip4.src == 10.16.0.0/16 && 80 <= tcp.dst <= 80',
        'to-lport 18479 drop outport == @ovn.sg.web && ip4 && ip4.src == 10.16.0.66 && 1 <= tcp.dst <= 65535',
        'to-lport 2004 allow-related outport == @ovn.sg.web && ip4 && ip4.src == $ovn.sg.web.associated.v4',
        'to-lport 2004 allow-related outport == @ovn.sg.web && ip6 && ip6.src == $ovn.sg.web.associated.v6',
        'to-lport 2005 allow-related outport == @ovn.sg.web && arp',
        'to-lport 2005 allow-related outport == @ovn.sg.web && icmp6.type == {130, 134, 135, 136} && icmp6.code == 0 && ip.ttl == 255',
        'to-lport 2005 allow-related outport == @ovn.sg.web && ip.proto == 112',
        'to-lport 2005 allow-related outport == @ovn.sg.web && udp.src == 547 && udp.dst == 546 && ip6',
        'to-lport 2005 allow-related outport == @ovn.sg.web && udp.src == 67 && udp.dst == 68 && ip4',
      ].sort(),
    );
    expect(aclsOf(t, 'ovn.sg.db').filter((a) => !a.includes(' 2005 '))).toEqual([
      'to-lport 18483 allow-related outport == @ovn.sg.db && ip4 && ip4.src == $ovn.sg.web.associated.v4 && 5432 <= tcp.dst <= 5432',
    ]);
    const lsp = t.switchPort.get('web-1.default');
    expect(lsp?.externalIds).toMatchObject({ security_groups: 'web', associated_sg_web: 'true' });
  });
});

describe('a SecurityGroup that does not translate fails closed', () => {
  const s = loadScenario(FILE);
  const withRule = (rule: Record<string, unknown>) =>
    edited(s, (o) => {
      if (o.kind !== 'SecurityGroup' || nameOf(o) !== 'web') return o;
      const spec = o.object.spec as { ingressRules: unknown[] };
      return { ...o, object: { ...o.object, spec: { ...spec, ingressRules: [...spec.ingressRules, rule] } } };
    });

  it.each([
    [
      'a pass rule (no ACL tiers on OVN 23.03)',
      { ipVersion: 'ipv4', priority: 3, remoteType: 'address', remoteAddress: '10.0.0.0/8', policy: 'pass' },
      'spec.ingressRules[2].policy',
    ],
    [
      'a remote address that is not one',
      { ipVersion: 'ipv4', priority: 3, remoteType: 'address', remoteAddress: '10.0.0.300', policy: 'allow' },
      'spec.ingressRules[2].remoteAddress',
    ],
    [
      'a priority out of 1..16384',
      { ipVersion: 'ipv4', priority: 0, remoteType: 'address', remoteAddress: '10.0.0.1', policy: 'allow' },
      'spec.ingressRules[2].priority',
    ],
  ])('%s: its pods keep only the base ACLs and the deny-all drop; reported on them', async (_, rule, field) => {
    const { r, t } = await run(withRule(rule));
    const refused = r.warnings.filter((w) => w.code === 'InvalidSecurityGroup');
    expect(refused.map((w) => [w.kind, w.name, w.field])).toEqual([['SecurityGroup', 'web', field]]);
    expect(refused[0]?.scope).toEqual(expect.arrayContaining([{ kind: 'pod', namespace: 'default', name: 'web-1' }]));
    // No rule, no same-group allow: only the base ACLs at 2005.
    expect(aclsOf(t, 'ovn.sg.web').every((a) => a.includes(' 2005 '))).toBe(true);
    expect(t.portGroup.get('ovn.sg.kubeovn_deny_all')?.ports).toContain('web-1.default');
    expect(verdict(r, 'default/client', 'default/web-1', 80)).toBe(false);
    expect(verdict(r, 'default/web-1', 'default/web-2', 8080)).toBe(false);
    // The probes touching its pods are unsure, never passing.
    expect(r.results.find((x) => x.from === 'default/client' && x.to === 'default/web-1')?.unsure).toBeDefined();
  });
});

describe('SecurityGroup status and changes, through the controller', () => {
  const running: Controller[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) await c.stop();
  });
  const sg = (name: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'kubeovn.io/v1',
    kind: 'SecurityGroup',
    metadata: { name },
    spec,
  });

  it("writes Kube-OVN's status, and a group created or deleted later moves its pods in and out of deny-all", async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await cluster.create(sg('a-b', { allowSameGroupTraffic: true }));
    await cluster.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', annotations: { 'ovn.kubernetes.io/security_groups': 'a-b, late' } },
      spec: { nodeName: 'n1', containers: [] },
    });
    const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(5) });
    running.push(c);
    await c.start();
    await settled(c);
    expect((await cluster.get({ kind: 'SecurityGroup', name: 'a-b' }))?.status).toEqual({
      portGroup: 'ovn.sg.a.b',
      allowSameGroupTraffic: true,
      ingressLastSyncSuccess: true,
      egressLastSyncSuccess: true,
    });
    let t = await backend.read();
    expect(t.portGroup.get('ovn.sg.a.b')?.ports).toEqual(['p.default']);
    expect(t.switchPort.get('p.default')?.externalIds).toMatchObject({
      security_groups: 'a-b/late',
      'associated_sg_a-b': 'true',
      associated_sg_late: 'true',
    });
    // The group `late` appears: the pod's address joins its set; `a-b` goes: the pod stays in deny-all through `late`.
    await cluster.create(sg('late', {}));
    await cluster.delete({ kind: 'SecurityGroup', name: 'a-b' });
    await settled(c);
    t = await backend.read();
    expect(t.portGroup.get('ovn.sg.a.b')).toBeUndefined();
    expect(t.portGroup.get('ovn.sg.late')?.ports).toEqual(['p.default']);
    expect(t.addressSet.get('ovn.sg.late.associated.v4')?.addresses).toHaveLength(1);
    expect(t.portGroup.get('ovn.sg.kubeovn_deny_all')?.ports).toEqual(['p.default']);
    // `late` goes too: none of its groups exists, the pod leaves deny-all.
    await cluster.delete({ kind: 'SecurityGroup', name: 'late' });
    await settled(c);
    t = await backend.read();
    expect(t.portGroup.get('ovn.sg.kubeovn_deny_all')?.ports).toEqual([]);
  });
});

describe('a restart with the groups, their pods and pool address sets unchanged', () => {
  const running: Controller[] = [];
  afterEach(async () => {
    for (const c of running.splice(0)) await c.stop();
  });

  it('writes nothing to NB and nothing to the cluster', async () => {
    const cluster = new MemoryCluster({ now: () => 0 });
    const backend = new SimBackend();
    await cluster.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const objects = [FILE, join(FILE, '..', 'ippool-address-set.yaml')].flatMap((f) => loadScenario(f).objects);
    for (const o of objects) {
      const obj = o.object as unknown as KubeObject;
      await cluster.create(o.kind === 'Pod' ? { ...obj, spec: { ...(obj.spec as object), nodeName: 'n1' } } : obj);
    }
    const boot = async () => {
      const c = new Controller({ cluster, backend, clock: realClock, random: seededRandomBytes(1) });
      running.push(c);
      const report = await c.start();
      await settled(c);
      return { c, report };
    };
    const first = await boot();
    expect((await backend.read()).portGroup.get('ovn.sg.web')?.ports).toHaveLength(2);
    await first.c.stop();
    const writes = cluster.stats().writes;
    const second = await boot();
    expect(second.report.operations).toBe(0);
    expect(second.report.disagreements).toEqual([]);
    expect(cluster.stats().writes).toBe(writes);
  });
});
