import { describe, expect, it } from 'vitest';
import { TopoBuilder, TopoBuilderError, twoSubnets } from './builder.ts';
import { formatKey } from './keys.ts';
import { validateTopology } from './validate.ts';

describe('TopoBuilder', () => {
  it('builds valid rows: twoSubnets is a router between two switches', () => {
    const t = twoSubnets().build();
    expect([...t.switch.keys()]).toEqual(['sw1', 'sw2']);
    expect(t.switchPort.get('sw1-r1')).toMatchObject({
      type: 'router',
      addresses: ['router'],
      options: { 'router-port': 'r1-sw1' },
    });
    expect(t.routerPort.get('r1-sw2')?.networks).toEqual(['10.0.2.1/24']);
    expect(validateTopology(t)).toEqual([]);
  });

  it('rejects duplicate keys with a typed error listing them', () => {
    const b = new TopoBuilder().switch('s').switch('s');
    expect(() => b.build()).toThrow(TopoBuilderError);
    try {
      b.build();
    } catch (e) {
      expect((e as TopoBuilderError).code).toBe('duplicate-key');
      expect((e as TopoBuilderError).issues.map((i) => i.path)).toEqual([['switch', 's']]);
    }
  });

  it('keeps two QoS rules of one match (a DSCP mark and a rate), as OVN has no uniqueness on match', () => {
    const b = new TopoBuilder()
      .switch('s')
      .qos('s', 'from-lport', 100, 'ip4.src == 10.0.0.2', 10)
      .qos('s', 'from-lport', 100, 'ip4.src == 10.0.0.2', 20);
    const t = b.build();
    expect([...t.qos.values()].map((q) => q.action.dscp)).toEqual([10, 20]);
    expect(validateTopology(t)).toEqual([]);
  });

  it('prints a QoS key’s action and bandwidth as sorted entries, unset ones absent', () => {
    const [q] = new TopoBuilder().switch('s').qos('s', 'to-lport', 7, 'ip4', 3).build().qos.values();
    const bandwidth = { burst: 10, rate: 1000 };
    expect(formatKey('qos', { ...q!, bandwidth })).toBe('s|to-lport|7|ip4|dscp=3|burst=10,rate=1000');
    expect(formatKey('qos', { ...q!, bandwidth: { rate: 1000, burst: 10 } })).toBe(
      formatKey('qos', { ...q!, bandwidth }),
    );
    expect(formatKey('qos', { ...q!, action: { dscp: undefined }, bandwidth: {} })).toBe('s|to-lport|7|ip4||');
  });
});
