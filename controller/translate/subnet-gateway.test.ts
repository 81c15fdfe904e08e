import { describe, expect, it } from 'vitest';
import { chooseGateways, egressGatewayRoute, natRuleId, nodeMasquerades } from './subnet-gateway.ts';

const n = (name: string, ready: boolean, ip: string) => ({ name, ready, joinIps: [ip] });

describe('chooseGateways (Kube-OVN primary-backup and ECMP)', () => {
  const nodes = [n('a', true, '100.64.0.2'), n('b', true, '100.64.0.3'), n('c', false, '100.64.0.4')];
  it('primary-backup: the first ready candidate; the active one kept while ready', () => {
    expect(chooseGateways(nodes, false, '')).toEqual({
      hops: [{ node: 'a', ip: '100.64.0.2' }],
      active: 'a',
      noneReady: false,
    });
    expect(chooseGateways(nodes, false, 'b').active).toBe('b');
    // The active one not ready (or no longer a candidate): the first ready one.
    expect(chooseGateways(nodes, false, 'c').active).toBe('a');
    expect(chooseGateways(nodes, false, 'zz').active).toBe('a');
  });
  it('ECMP: every ready candidate, in order', () => {
    expect(chooseGateways(nodes, true, 'b').hops.map((h) => h.node)).toEqual(['a', 'b']);
  });
  it('none ready: the policy keeps the old active hop (Kube-OVN returns before touching it)', () => {
    const down = nodes.map((x) => ({ ...x, ready: false }));
    expect(chooseGateways(down, false, 'b')).toEqual({
      hops: [{ node: 'b', ip: '100.64.0.3' }],
      active: 'b',
      noneReady: true,
    });
    expect(chooseGateways(down, false, '')).toEqual({ hops: [], active: '', noneReady: true });
    expect(chooseGateways(down, true, '').hops).toEqual([]);
  });
  it('a dual-stack node is a hop of each family', () => {
    const dual = [{ name: 'a', ready: true, joinIps: ['100.64.0.2', 'fd00:100:64::2'] }];
    expect(chooseGateways(dual, false, '').hops.map((h) => h.ip)).toEqual(['100.64.0.2', 'fd00:100:64::2']);
  });
});

describe('natRuleId', () => {
  it("hashes the subnet's name, the index and the rule's JSON as Go marshals it", () => {
    // Values from Python's hashlib over the same bytes: 'edge' + '0' + '{"match":{"dstIPs":"192.0.2.0/24"},"action":"forward"}'.
    expect(natRuleId('edge', 0, { srcIPs: '', dstIPs: '192.0.2.0/24', action: 'forward' })).toBe('eed4bc3abdb7');
    expect(natRuleId('edge', 1, { srcIPs: '10.97.0.128/25', dstIPs: '192.0.2.7', action: 'nat' })).toBe('43886f7223ff');
  });
});

describe('nodeMasquerades (the node agent iptables marks)', () => {
  const subnet = {
    natOutgoing: true,
    natOutgoingPolicyRules: [
      { srcIPs: '', dstIPs: '192.0.2.0/24', action: 'forward' as const },
      { srcIPs: '10.0.0.128/25', dstIPs: '192.0.2.7,192.0.2.8', action: 'nat' as const },
      { srcIPs: '', dstIPs: 'fd00::/64', action: 'forward' as const },
    ],
  };
  it('nat wins over forward whatever the order; no match falls back to natOutgoing', () => {
    expect(nodeMasquerades(subnet, '10.0.0.2', '192.0.2.7')).toEqual({
      snat: false,
      by: 'natOutgoingPolicyRules[0] (forward)',
    });
    expect(nodeMasquerades(subnet, '10.0.0.200', '192.0.2.8')).toEqual({
      snat: true,
      by: 'natOutgoingPolicyRules[1] (nat)',
    });
    expect(nodeMasquerades(subnet, '10.0.0.200', '198.51.100.1')).toEqual({ snat: true, by: 'natOutgoing' });
  });
  it('rules of the other family do not apply; without natOutgoing nothing is masqueraded', () => {
    expect(nodeMasquerades(subnet, 'fd01::2', 'fd00::9').snat).toBe(false);
    expect(nodeMasquerades(subnet, '10.0.0.2', '203.0.113.1').snat).toBe(true);
    expect(nodeMasquerades({ ...subnet, natOutgoing: false }, '10.0.0.200', '192.0.2.8')).toEqual({
      snat: false,
      by: 'natOutgoing false',
    });
  });
});

describe('egressGatewayRoute (the node agent policy routing)', () => {
  const s = {
    natOutgoing: false,
    externalEgressGateway: '192.168.0.254,fd00::fe',
    policyRoutingPriority: 1500,
    policyRoutingTableID: 1000,
  };
  it("the gateway of the packet's family; none with natOutgoing or without one of that family", () => {
    expect(egressGatewayRoute(s, 6)).toBe('the external egress gateway fd00::fe (ip rule priority 1500, table 1000)');
    expect(egressGatewayRoute({ ...s, natOutgoing: true }, 4)).toBeUndefined();
    expect(egressGatewayRoute({ ...s, externalEgressGateway: 'fd00::fe' }, 4)).toBeUndefined();
  });
});
