// Flows northd 23.03 writes but OVN refuses to parse (compile/northd-text.ts):
// ovn-controller skips them, so the packet meets the stage's other flows.
// Each case was checked with real northd + ovn-trace (and the ARP reject with
// ovn-controller on a dummy datapath).
import { describe, expect, it } from 'vitest';
import { parseIPv4 } from '../model/addr/index.ts';
import { MAC, TopoBuilder, twoSubnets, type Topology } from '../model/topology/index.ts';
import { compileNetwork } from './compile/network.ts';
import { arpRequest, icmpEcho, tcpPacket, udpPacket } from '../model/packet/build.ts';
import { simulate } from './simulate.ts';

const ping = () => icmpEcho({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12' });

/** The topology with every ACL logging under `name`. */
function logging(t: Topology, name: string): Topology {
  return { ...t, acl: new Map([...t.acl].map(([k, a]) => [k, { ...a, log: true, name }])) };
}

describe('reject ACLs with a top-level || (build_reject_acl_rules pastes the match unparenthesized)', () => {
  const reject = (b: TopoBuilder) => b.acl('sw1', 'from-lport', 1000, 'ip4 || ip4', 'reject');

  it('on a stateful switch both reject flows fail to parse: the packet goes on as if the ACL were absent', () => {
    // Stateful by an allow-related ACL, or by a load balancer VIP (even one without backends).
    const byAcl = reject(twoSubnets()).acl('sw1', 'from-lport', 1, 'udp', 'allow-related').build();
    const lb = reject(twoSubnets()).lb('vip', { '10.96.0.11': '' }).build();
    const byLb: Topology = {
      ...lb,
      switch: new Map([...lb.switch].map(([k, v]) => [k, k === 'sw1' ? { ...v, loadBalancers: ['vip'] } : v])),
    };
    for (const t of [byAcl, byLb]) {
      const net = compileNetwork(t);
      const r = simulate(net, { inport: 'p1', packet: ping() });
      expect(r.outputs.map((o) => [o.port, o.generated])).toEqual([['p2', undefined]]);
      const refused = net.issues.filter((i) => i.code === 'sim-flow-refused');
      expect(refused).toHaveLength(1);
      expect(refused[0]!.message).toContain('(reg0[9] == 1) && ip4 || ip4');
      expect(refused[0]!.message).toContain('must be parenthesized');
    }
  });

  it('on a switch without stateful ACLs or LB VIPs the match stands alone and the ACL rejects', () => {
    const net = compileNetwork(reject(twoSubnets()).build());
    const r = simulate(net, { inport: 'p1', packet: ping() });
    expect(r.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'icmp-error']]);
    expect(net.issues).toEqual([]);
  });

  it('a parenthesized || (or an && of ||s) is fine on a stateful switch', () => {
    const t = twoSubnets()
      .acl('sw1', 'from-lport', 1000, 'ip4 && (icmp4 || udp)', 'reject')
      .acl('sw1', 'from-lport', 1, 'tcp', 'allow-related')
      .build();
    const r = simulate(compileNetwork(t), { inport: 'p1', packet: ping() });
    expect(r.outputs.map((o) => [o.port, o.generated])).toEqual([['p1', 'icmp-error']]);
  });
});

describe('ACL log names OVN cannot quote (build_acl_log)', () => {
  it('a logged ACL whose name holds a double quote never fires; a plain name does', () => {
    const base = twoSubnets().acl('sw1', 'from-lport', 1000, 'udp', 'drop').build();
    const udp = udpPacket({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12', sport: 1, dport: 2 });
    const bad = compileNetwork(logging(base, 'a"b'));
    expect(simulate(bad, { inport: 'p1', packet: udp }).verdict).toBe('delivered');
    expect(bad.issues.map((i) => i.code)).toEqual(['sim-flow-refused']);
    expect(simulate(compileNetwork(logging(base, 'np.default')), { inport: 'p1', packet: udp }).verdict).toBe(
      'dropped',
    );
  });

  it('an allow-stateless ACL with such a name keeps its pre-ACL bypass but loses its ACL-stage flow', () => {
    // Stateful switch (allow-related); the stateless ACL above a drop: its own flow would let the packet by.
    const base = twoSubnets()
      .acl('sw1', 'from-lport', 1001, 'udp', 'allow-stateless')
      .acl('sw1', 'from-lport', 1000, 'udp', 'drop')
      .acl('sw1', 'from-lport', 1, 'tcp', 'allow-related')
      .build();
    const t: Topology = {
      ...base,
      acl: new Map(
        [...base.acl].map(([k, a]) => [k, a.action === 'allow-stateless' ? { ...a, log: true, name: 'x"' } : a]),
      ),
    };
    const udp = udpPacket({ ethSrc: MAC.p1, ethDst: MAC.p2, src: '10.0.1.11', dst: '10.0.1.12', sport: 1, dport: 2 });
    const r = simulate(compileNetwork(t), { inport: 'p1', packet: udp });
    expect(r.stages.some((s) => s.stage === 'ls_in_pre_acl' && s.action.startsWith('allow-stateless'))).toBe(true);
    expect(r.verdict).toBe('dropped');
    expect(r.drop?.stage).toBe('ls_in_acl');
  });
});

describe('router VIPs without backends (build_lb_vip_actions: a flag before `drop;`)', () => {
  const toVip = () =>
    tcpPacket({ ethSrc: MAC.q1, ethDst: MAC.r1sw2, src: '10.0.2.11', dst: '10.0.1.99', sport: 1234, dport: 80 });
  const withVip = (routerOptions: Record<string, string>, lbOptions: Record<string, string>) => {
    const t = twoSubnets(routerOptions)
      .lb('web', { '10.0.1.99:80': '' }, { protocol: 'tcp', options: lbOptions })
      .build();
    return compileNetwork({ ...t, router: new Map([['r1', { ...t.router.get('r1')!, loadBalancers: ['web'] }]]) });
  };

  it('plain: `drop;` stands alone and drops the new connection', () => {
    const r = simulate(withVip({}, {}), { inport: 'q1', packet: toVip() });
    expect(r.verdict).toBe('dropped');
    expect(r.drop?.stage).toBe('lr_in_dnat');
  });

  it('skip_snat, or an lb_force_snat_ip address on any router: the flow is refused and the packet is routed on', () => {
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ chassis: 'hv1' }, { skip_snat: 'true' }],
      [{}, { skip_snat: 'true' }],
      [{ lb_force_snat_ip: '10.0.2.250' }, {}],
      [{ chassis: 'hv1', lb_force_snat_ip: 'router_ip' }, {}],
    ];
    for (const [router, lb] of cases) {
      const net = withVip(router, lb);
      const r = simulate(net, { inport: 'q1', packet: toVip() });
      const what = JSON.stringify([router, lb]);
      expect(
        r.drops.map((d) => d.stage),
        what,
      ).not.toContain('lr_in_dnat');
      // 10.0.1.99 is on sw1's subnet and unknown: the router asks for it.
      expect(r.outputs.length, what).toBeGreaterThan(0);
      expect(new Set(r.outputs.map((o) => o.generated)), what).toEqual(new Set(['arp-request']));
      expect(net.issues.find((i) => i.code === 'sim-flow-refused')?.message, what).toContain('_for_lb = 1; drop;');
    }
  });

  it('router_ip counts on a gateway router only; with options:reject the flag is harmless', () => {
    const plainRouterIp = simulate(withVip({ lb_force_snat_ip: 'router_ip' }, {}), { inport: 'q1', packet: toVip() });
    expect(plainRouterIp.drop?.stage).toBe('lr_in_dnat');
    const rejecting = simulate(withVip({}, { skip_snat: 'true', reject: 'true' }), { inport: 'q1', packet: toVip() });
    expect(rejecting.outputs.map((o) => [o.port, o.generated])).toEqual([['q1', 'tcp-reset']]);
    expect(rejecting.outputs[0]!.packet['ip4.src']).toBe(parseIPv4('10.0.1.99'));
  });
});

describe('reject of a non-IP frame', () => {
  it('an ARP request a reject ACL matches is dropped with no reply (pinctrl_handle_icmp ignores non-IP frames)', () => {
    const t = new TopoBuilder()
      .switch('sw1')
      .vif('p1', 'sw1', MAC.p1, '10.0.1.11')
      .vif('p2', 'sw1', MAC.p2, '10.0.1.12')
      .acl('sw1', 'from-lport', 5, 'arp', 'reject')
      .build();
    const r = simulate(compileNetwork(t), {
      inport: 'p1',
      packet: arpRequest({ sha: MAC.p1, spa: '10.0.1.11', tpa: '10.0.1.12' }),
    });
    expect(r.verdict).toBe('dropped');
    expect(r.outputs).toEqual([]);
    expect(r.drop).toMatchObject({ stage: 'ls_in_acl' });
  });
});
