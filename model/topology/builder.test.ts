import { describe, expect, it } from 'vitest';
import { TopoBuilder, TopoBuilderError, twoSubnets } from './builder.ts';
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
});
