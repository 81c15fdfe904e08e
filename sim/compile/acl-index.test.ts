import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopoBuilder, twoSubnets } from '../../model/topology/index.ts';
import { fcParams } from '../../test/fc.ts';
import { CS_EST, CS_NEW, CS_RPL, CS_TRK } from '../conntrack/state.ts';
import { arpRequest, icmpEcho, tcpPacket, udpPacket } from '../../model/packet/build.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { NO_CARRY, PipelineCtx } from '../pipeline/context.ts';
import { byPriorityThenKey, candidateAcls, newAclScratch } from './acl-index.ts';
import { compileNetwork } from './network.ts';
import type { AclIndex, AclRule, SwitchDp } from './types.ts';

/*
 * The index may only ever skip ACLs that cannot match: for any ACL set and
 * packet, the ACLs that match, taken in candidate order, are exactly those a
 * scan of every ACL of the stage in priority order finds (so the verdict,
 * the first one that acts, and any same-priority ambiguity are the same).
 */

const PORTS = ['p1', 'p2', 'p3', 'q1'] as const;
const IPS: Record<(typeof PORTS)[number], string> = {
  p1: '10.0.1.11',
  p2: '10.0.1.12',
  p3: '10.0.1.13',
  q1: '10.0.2.11',
};

const ATOMS = [
  'inport == "p1"',
  'inport == "p2"',
  'inport == @pgA',
  'inport == {"p1", "p3"}',
  'inport == ""',
  'inport == @pgB',
  'outport == "p2"',
  'outport == @pgB',
  'outport == {"p2", "q1"}',
  'outport == @pgA',
  'ip4.src == 10.0.1.11',
  'ip4.src == 10.0.1.0/24',
  'ip4.src == {10.0.1.11, 10.0.1.12}',
  'ip4.src == {10.0.1.11, 10.0.2.0/24}',
  'ip4.src == $asA',
  'ip4.src != $asB',
  'ip4.dst == 10.0.1.12',
  'ip4.dst == $asB',
  'ip4.dst == 10.0.0.0/16',
  'ip4.src == 0.0.0.0/0',
  'ip4.dst == $pgA_ip4',
  'ip4.src == $asEmpty',
  'ip4.src[0..7] == 11',
  'ip4',
  'ip6',
  'ip',
  'tcp',
  'udp.dst == 53',
  'tcp.dst == 80',
  'tcp.dst == {80, 443}',
  'icmp4',
  'ct.est',
  '!ct.new',
  'arp',
  'ip6.src == fd00::1',
  'eth.src == 00:00:00:00:01:01',
];

const atom = fc.constantFrom(...ATOMS);
// OVN allows no `!` over nominal fields and predicates (inport, ip4, tcp, ...).
const negatable = fc.constantFrom(
  'ip4.src == 10.0.1.11',
  'ip4.src == $asA',
  'ip4.dst == 10.0.0.0/16',
  'tcp.dst == 80',
  'udp.dst == 53',
  'ct.est',
  'eth.src == 00:00:00:00:01:01',
);
const matchArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(atom, { minLength: 1, maxLength: 4 }).map((as) => as.join(' && ')) },
  { weight: 1, arbitrary: fc.tuple(atom, atom, atom).map(([a, b, c]) => `(${a} || ${b}) && ${c}`) },
  { weight: 1, arbitrary: fc.tuple(negatable, atom).map(([a, b]) => `!(${a}) && ${b}`) },
);

const aclArb = fc.record({
  on: fc.constantFrom('sw1', 'sw2', 'pgA', 'pgB'),
  direction: fc.constantFrom('from-lport' as const, 'to-lport' as const),
  priority: fc.constantFrom(1000, 1000, 2000, 2001, 3000),
  match: matchArb,
  action: fc.constantFrom(
    'allow' as const,
    'allow-related' as const,
    'allow-stateless' as const,
    'drop' as const,
    'reject' as const,
  ),
  afterLb: fc.boolean(),
});

const setEntries = fc.subarray(['10.0.1.11', '10.0.1.12', '10.0.1.0/24', '10.0.2.0/24', '10.0.1.13', 'fd00::1']);

const topoArb = fc.record({
  pgA: fc.subarray([...PORTS], { minLength: 1 }),
  pgB: fc.subarray([...PORTS], { minLength: 1 }),
  asA: setEntries,
  asB: setEntries,
  // Distinct rows (the topology keys ACLs by their content).
  acls: fc.uniqueArray(aclArb, {
    maxLength: 14,
    selector: (a) => `${a.on}|${a.direction}|${a.priority}|${a.match}|${a.action}|${a.afterLb}`,
  }),
});

type TopoSpec = typeof topoArb extends fc.Arbitrary<infer T> ? T : never;

function build(spec: TopoSpec) {
  const b = new TopoBuilder().switch('sw1').switch('sw2');
  for (const p of PORTS)
    b.vif(p, p === 'q1' ? 'sw2' : 'sw1', `00:00:00:00:0${p === 'q1' ? 2 : 1}:0${PORTS.indexOf(p) + 1}`, IPS[p]);
  b.portGroup('pgA', spec.pgA)
    .portGroup('pgB', spec.pgB)
    .addressSet('asA', spec.asA)
    .addressSet('asB', spec.asB)
    .addressSet('asEmpty', []);
  for (const a of spec.acls) {
    const options: Record<string, string> =
      a.afterLb && a.direction === 'from-lport' ? { 'apply-after-lb': 'true' } : {};
    b.acl(a.on, a.direction, a.priority, a.match, a.action, { options });
  }
  return b.build();
}

const ipPick = fc.constantFrom(...Object.values(IPS), '10.9.9.9', '10.0.1.200');
const packetArb = fc.oneof(
  fc
    .record({
      src: ipPick,
      dst: ipPick,
      sport: fc.constantFrom(1000, 53),
      dport: fc.constantFrom(80, 443, 53, 22),
      kind: fc.constantFrom('tcp', 'udp', 'icmp'),
    })
    .map(({ src, dst, sport, dport, kind }): Packet => {
      const spec = { ethSrc: '00:00:00:00:01:01', ethDst: '00:00:00:00:01:02', src, dst };
      return kind === 'tcp'
        ? tcpPacket({ ...spec, sport, dport })
        : kind === 'udp'
          ? udpPacket({ ...spec, sport, dport })
          : icmpEcho(spec);
    }),
  fc.constant(
    tcpPacket({
      ethSrc: '00:00:00:00:01:01',
      ethDst: '00:00:00:00:01:02',
      src: 'fd00::1',
      dst: 'fd00::2',
      sport: 1,
      dport: 80,
    }),
  ),
  fc.constant(arpRequest({ sha: '00:00:00:00:01:01', spa: '10.0.1.11', tpa: '10.0.1.12' })),
);

const probeArb = fc.record({
  packet: packetArb,
  inport: fc.constantFrom('', ...PORTS),
  outport: fc.constantFrom('', ...PORTS),
  ctState: fc.constantFrom(0, CS_TRK | CS_NEW, CS_TRK | CS_EST, CS_TRK | CS_EST | CS_RPL),
});

const indexesOf = (dp: SwitchDp): [string, AclIndex][] => [
  ['in', dp.acls.in],
  ['after_lb', dp.acls.after_lb],
  ['out', dp.acls.out],
  ['stateless in', dp.statelessAcls.in],
  ['stateless out', dp.statelessAcls.out],
];

describe('ACL index', () => {
  it('property: the candidates of a packet hold every ACL of the stage it matches, in priority order', () => {
    fc.assert(
      fc.property(topoArb, fc.array(probeArb, { minLength: 1, maxLength: 8 }), (spec, probes) => {
        const net = compileNetwork(build(spec));
        const ctx = new PipelineCtx();
        const scratch = newAclScratch();
        for (const dp of net.switches.values()) {
          for (const [name, index] of indexesOf(dp)) {
            for (const pr of probes) {
              ctx.begin(pr.packet, pr.inport, pr.outport, { ...NO_CARRY, ctState: pr.ctState }, undefined, 'switch');
              const everyAcl = index.rules.filter((r) => r.test(ctx)).map((r) => r.key);
              const viaIndex = candidateAcls(index, pr.inport, pr.outport, pr.packet, scratch)
                .map((i) => index.rules[i]!)
                .filter((r) => r.test(ctx))
                .map((r) => r.key);
              expect(viaIndex, `${dp.name} ${name} ${JSON.stringify({ ...pr, packet: undefined })}`).toEqual(everyAcl);
            }
          }
        }
      }),
      fcParams(300),
    );
  });

  it('property: each stage holds every ACL attached to the switch for it, in priority order (ties by row key)', () => {
    fc.assert(
      fc.property(topoArb, (spec) => {
        const t = build(spec);
        const net = compileNetwork(t);
        for (const dp of net.switches.values()) {
          const onSwitch = [...t.acl.values()].filter((a) =>
            a.attachTo.kind === 'switch'
              ? a.attachTo.name === dp.name
              : (t.portGroup.get(a.attachTo.name)?.ports ?? []).some((p) => t.switchPort.get(p)?.switch === dp.name),
          );
          const count = (pred: (a: (typeof onSwitch)[number]) => boolean) => onSwitch.filter(pred).length;
          const afterLb = (a: (typeof onSwitch)[number]) => a.options['apply-after-lb'] === 'true';
          expect(dp.acls.out.rules).toHaveLength(count((a) => a.direction === 'to-lport'));
          expect(dp.acls.in.rules).toHaveLength(count((a) => a.direction === 'from-lport' && !afterLb(a)));
          expect(dp.acls.after_lb.rules).toHaveLength(count((a) => a.direction === 'from-lport' && afterLb(a)));
          for (const index of [dp.acls.in, dp.acls.after_lb, dp.acls.out]) {
            expect(index.rules.map((r) => r.key)).toEqual([...index.rules].sort(byPriorityThenKey).map((r) => r.key));
          }
          const stateless = (stage: readonly AclRule[]) =>
            stage
              .filter((r) => r.acl.action === 'allow-stateless')
              .map((r) => r.key)
              .sort();
          expect(dp.statelessAcls.out.rules.map((r) => r.key).sort()).toEqual(stateless(dp.acls.out.rules));
          expect(dp.statelessAcls.in.rules.map((r) => r.key).sort()).toEqual(
            stateless([...dp.acls.in.rules, ...dp.acls.after_lb.rules]),
          );
        }
      }),
      fcParams(200),
    );
  });

  it('property: a router policy table gives the same matching policies, in order, as a scan of all of them', () => {
    const policyAtom = fc.constantFrom(
      'ip4.dst == 10.0.1.0/24',
      'ip4.dst == 10.0.2.11',
      'ip4.src == {10.0.1.11, 10.0.1.12}',
      'ip4.src == $asA',
      'ip4.dst == 10.0.0.0/8',
      'inport == "r1-sw1"',
      'outport == "r1-sw2"',
      'inport == @pgA',
      'tcp.dst == 80',
      'ip4',
      'udp',
      'ip6',
    );
    const policies = fc.uniqueArray(
      fc.record({
        priority: fc.constantFrom(100, 31000, 31000, 29000),
        match: fc.array(policyAtom, { minLength: 1, maxLength: 3 }).map((a) => a.join(' && ')),
        action: fc.constantFrom('allow' as const, 'drop' as const),
      }),
      { maxLength: 10, selector: (p) => `${p.priority}|${p.match}` },
    );
    fc.assert(
      fc.property(setEntries, policies, fc.array(probeArb, { minLength: 1, maxLength: 6 }), (asA, ps, probes) => {
        const b = twoSubnets().portGroup('pgA', ['p1']).addressSet('asA', asA);
        for (const p of ps) b.policy('r1', p.priority, p.match, p.action);
        const index = compileNetwork(b.build()).routers.get('r1')!.policyIndex;
        const ctx = new PipelineCtx();
        for (const pr of probes) {
          const [inport, outport] = [pr.inport === 'q1' ? 'r1-sw2' : 'r1-sw1', pr.outport === '' ? '' : 'r1-sw2'];
          ctx.begin(pr.packet, inport, outport, NO_CARRY, undefined, 'router');
          const everyPolicy = index.rules.filter((r) => r.test(ctx)).map((r) => r.key);
          const viaIndex = candidateAcls(index, inport, outport, pr.packet, newAclScratch())
            .map((i) => index.rules[i]!)
            .filter((r) => r.test(ctx))
            .map((r) => r.key);
          expect(viaIndex).toEqual(everyPolicy);
        }
      }),
      fcParams(200),
    );
  });

  it('files an ACL under its most selective requirement: the port group, not a /16 of sources', () => {
    const t = new TopoBuilder()
      .switch('sw1')
      .vif('p1', 'sw1', '00:00:00:00:01:01', '10.16.0.2')
      .vif('p2', 'sw1', '00:00:00:00:01:02', '10.16.0.3')
      .portGroup('pg', ['p2'])
      .addressSet('allow', ['10.16.0.0/16'])
      .acl('pg', 'to-lport', 2001, 'outport == @pg && ip && ip4.src == $allow', 'allow-related')
      .acl('sw1', 'to-lport', 3000, 'ip4.src == 100.64.0.2 && ip4.dst == 10.16.0.3', 'allow-related')
      .build();
    const out = compileNetwork(t).switches.get('sw1')!.acls.out;
    expect([...out.byOutport.keys()]).toEqual(['p2']);
    expect(out.bySrc.map((b) => [...b.byValue.keys()])).toEqual([[0x64400002]]);
    expect(out.rest).toEqual([]);
  });
});
