import { describe, expect, it } from 'vitest';
import { KINDS } from './context.ts';
import { type Handler, startOrder } from './handler.ts';
import { HANDLERS } from './index.ts';

const h = (kind: Handler['kind'], after: Handler['kind'][]): Handler => ({
  kind,
  after,
  watches: [],
  reconcile: async () => {},
});

describe('handler declarations', () => {
  it('start each kind after the kinds it reads', () => {
    const order = startOrder(HANDLERS).map((x) => x.kind);
    expect(order).toEqual([
      'Subnet',
      'IPPool',
      'Vip',
      'Vpc',
      'Node',
      'Namespace',
      'Pod',
      'Service',
      'NetworkPolicy',
      'AdminNetworkPolicy',
      'BaselineAdminNetworkPolicy',
      'SecurityGroup',
      'VpcNatGateway',
      'IptablesEIP',
      'IptablesFIPRule',
      'IptablesSnatRule',
      'IptablesDnatRule',
      'SwitchLBRule',
      'ProviderNetwork',
      'Vlan',
      'QoSPolicy',
      'OvnEip',
      'OvnFip',
      'OvnSnatRule',
      'OvnDnatRule',
    ]);
    for (const x of HANDLERS) for (const k of x.after) expect(order.indexOf(k)).toBeLessThan(order.indexOf(x.kind));
  });

  it('refuse a cycle and a dependency no handler reconciles', () => {
    expect(() => startOrder([h('Pod', ['Node']), h('Node', ['Pod'])])).toThrow(/cycle among Pod, Node/);
    expect(() => startOrder([h('Pod', ['Node'])])).toThrow(/Node named in after has no handler/);
  });

  it('watch only kinds the controller has informers for, one handler per kind', () => {
    const kinds = new Set<string>(KINDS);
    for (const x of HANDLERS) for (const w of x.watches) expect(kinds.has(w.kind)).toBe(true);
    expect(new Set(HANDLERS.map((x) => x.kind)).size).toBe(HANDLERS.length);
  });
});
