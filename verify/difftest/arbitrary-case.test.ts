import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan, validateTopology } from '../../model/topology/index.ts';
import { fcParams, fcSeed } from '../../test/fc.ts';
import { arbitraryCase, caseSpecArbitrary } from './arbitrary-case.ts';
import { buildCase, caseFromJSON, caseToJSON } from './case.ts';
import { MAX_PORTS } from './materialize.ts';

describe('difftest case generator', () => {
  it('generates topologies validateTopology accepts, within the size limits, with the inport on the named switch', () => {
    fc.assert(
      fc.property(arbitraryCase(), (c) => {
        expect(validateTopology(c.topology)).toEqual([]);
        expect(c.topology.router.size).toBeGreaterThanOrEqual(1);
        expect(c.topology.router.size).toBeLessThanOrEqual(3);
        const internal = [...c.topology.switch.keys()].filter((n) => n.startsWith('ls'));
        expect(internal.length).toBeGreaterThanOrEqual(1);
        expect(internal.length).toBeLessThanOrEqual(6);
        expect(c.topology.switchPort.size).toBeLessThanOrEqual(MAX_PORTS);
        expect(c.topology.switchPort.get(c.inport)?.switch).toBe(c.datapath);
        expect(c.packet['eth.type']).toBeGreaterThan(0);
      }),
      fcParams(300),
    );
  });

  it('round-trips a case through its JSON form (the regression file format)', () => {
    fc.assert(
      fc.property(arbitraryCase(), (c) => {
        const back = caseFromJSON(JSON.parse(JSON.stringify(caseToJSON(c))));
        expect(plan(back.topology, c.topology)).toEqual([]);
        expect(back.packet).toEqual(c.packet);
        expect([back.inport, back.datapath, back.lbPick]).toEqual([c.inport, c.datapath, c.lbPick]);
      }),
      fcParams(100),
    );
  });

  it('covers what the differential test is about (over 400 cases of the CI seed)', () => {
    const cases = fc.sample(caseSpecArbitrary, { seed: fcSeed(), numRuns: 400 }).map(buildCase);
    const seen = new Set<string>();
    const mark = (k: string) => seen.add(k);
    for (const c of cases) {
      const t = c.topology;
      for (const a of t.acl.values()) {
        mark(`acl:${a.action}`);
        mark(`acl:${a.direction}`);
        if (a.options['apply-after-lb'] === 'true') mark('acl:apply-after-lb');
        if (a.attachTo.kind === 'port-group') mark('acl:port-group');
      }
      for (const s of t.switch.values()) if (s.loadBalancers.length) mark('lb:switch');
      for (const r of t.router.values()) {
        if (r.loadBalancers.length) mark('lb:router');
        if (r.options.chassis) mark('router:gateway');
      }
      for (const lb of t.loadBalancer.values()) {
        if (lb.options.affinity_timeout) mark('lb:affinity');
        for (const [vip, backends] of Object.entries(lb.vips)) {
          mark(vip.startsWith('[') ? 'lb:v6' : vip.includes(':') ? 'lb:port' : 'lb:no-port');
          mark(`lb:backends-${backends === '' ? 0 : backends.split(',').length}`);
        }
      }
      for (const n of t.nat.values()) mark(n.logicalPort ? 'nat:distributed' : `nat:${n.type}`);
      for (const p of t.routerPort.values()) {
        if (p.gatewayChassis.length) mark('router:dgp');
        if (p.peer) mark('router:link');
        if (p.options.route_table) mark('route:table-port');
      }
      const routes = [...t.staticRoute.values()];
      for (const r of routes) {
        if (r.policy === 'src-ip') mark('route:src-ip');
        if (r.routeTable) mark('route:table');
        if (r.nexthop === 'discard') mark('route:discard');
        if (
          routes.some(
            (o) =>
              o !== r &&
              o.router === r.router &&
              o.ipPrefix === r.ipPrefix &&
              o.routeTable === r.routeTable &&
              o.policy === r.policy,
          )
        )
          mark('route:ecmp');
      }
      for (const p of t.routerPolicy.values()) mark(p.nexthops.length > 1 ? 'policy:ecmp' : `policy:${p.action}`);
      for (const p of t.switchPort.values()) {
        if (p.portSecurity.length) mark(`port-security:${p.portSecurity[0]!.split(' ').length > 1 ? 'ip' : 'mac'}`);
        if (p.addresses.includes('unknown') && p.type === '') mark('port:unknown');
      }
      const pk = c.packet;
      mark(
        pk['arp.op']
          ? 'packet:arp'
          : pk['icmp6.type'] === 135
            ? 'packet:nd'
            : pk['tcp.flags']
              ? 'packet:tcp'
              : pk['udp.dst']
                ? 'packet:udp'
                : pk['sctp.dst']
                  ? 'packet:sctp'
                  : 'packet:icmp',
      );
      if (pk['ip6.src'] !== undefined) mark('packet:ipv6');
      if (pk['ip.ttl'] === 1 || pk['ip.ttl'] === 2) mark('packet:ttl-edge');
      if (t.switchPort.get(c.inport)?.type === 'localnet' || c.datapath.startsWith('ext')) mark('packet:outside');
    }
    const wanted = [
      'acl:allow',
      'acl:allow-related',
      'acl:allow-stateless',
      'acl:drop',
      'acl:reject',
      'acl:from-lport',
      'acl:to-lport',
      'acl:apply-after-lb',
      'acl:port-group',
      'lb:switch',
      'lb:router',
      'lb:v6',
      'lb:port',
      'lb:no-port',
      'lb:backends-0',
      'lb:backends-1',
      'lb:backends-3',
      'lb:affinity',
      'nat:snat',
      'nat:dnat',
      'nat:dnat_and_snat',
      'nat:distributed',
      'router:gateway',
      'router:dgp',
      'router:link',
      'route:src-ip',
      'route:table',
      'route:table-port',
      'route:discard',
      'route:ecmp',
      'policy:allow',
      'policy:drop',
      'policy:reroute',
      'policy:ecmp',
      'port-security:mac',
      'port-security:ip',
      'port:unknown',
      'packet:arp',
      'packet:nd',
      'packet:tcp',
      'packet:udp',
      'packet:sctp',
      'packet:icmp',
      'packet:ipv6',
      'packet:ttl-edge',
      'packet:outside',
    ];
    expect(wanted.filter((w) => !seen.has(w))).toEqual([]);
  });
});
