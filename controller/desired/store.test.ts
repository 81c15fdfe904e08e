import { describe, expect, it } from 'vitest';
import type { LoadBalancer, LogicalSwitch, PortGroup } from '../../model/topology/index.ts';
import { DesiredState } from './store.ts';

const ls = (name: string, extra: Partial<LogicalSwitch> = {}): LogicalSwitch => ({
  name,
  loadBalancers: [],
  otherConfig: {},
  externalIds: { vendor: 'kovn' },
  ...extra,
});
const lb = (name: string, vips: Record<string, string> = {}): LoadBalancer => ({
  name,
  vips,
  protocol: 'tcp',
  selectionFields: [],
  options: {},
  externalIds: { vendor: 'kovn' },
});
const pg = (name: string, ports: string[]): PortGroup => ({ name, ports, externalIds: { vendor: 'kovn' } });

const dirtyOf = (s: DesiredState) => Object.fromEntries([...s.takeDirty()].map(([t, keys]) => [t, [...keys].sort()]));

describe('DesiredState', () => {
  it('marks only the rows a new fragment changes', () => {
    const s = new DesiredState();
    const a = ls('a');
    s.set({ kind: 'Subnet', name: 'a' }, { rows: [{ table: 'switch', row: a }] });
    s.set({ kind: 'Subnet', name: 'b' }, { rows: [{ table: 'switch', row: ls('b') }] });
    expect(dirtyOf(s)).toEqual({ switch: ['a', 'b'] });
    // The same row object again: nothing to do.
    s.set({ kind: 'Subnet', name: 'a' }, { rows: [{ table: 'switch', row: a }] });
    expect(s.dirtyCount).toBe(0);
    s.set(
      { kind: 'Subnet', name: 'a' },
      { rows: [{ table: 'switch', row: ls('a', { otherConfig: { mtu: '1400' } }) }] },
    );
    expect(dirtyOf(s)).toEqual({ switch: ['a'] });
    expect(s.row('switch', 'a')?.otherConfig).toEqual({ mtu: '1400' });
  });

  it('drops the rows an owner no longer names, and all of them on delete', () => {
    const s = new DesiredState();
    s.set(
      { kind: 'Vpc', name: 'x' },
      {
        rows: [
          { table: 'switch', row: ls('x1') },
          { table: 'switch', row: ls('x2') },
        ],
      },
    );
    s.takeDirty();
    s.set({ kind: 'Vpc', name: 'x' }, { rows: [{ table: 'switch', row: ls('x1') }] });
    expect(dirtyOf(s)).toEqual({ switch: ['x1', 'x2'] });
    expect(s.row('switch', 'x2')).toBeUndefined();
    s.delete({ kind: 'Vpc', name: 'x' });
    expect(dirtyOf(s)).toEqual({ switch: ['x1'] });
    expect(s.has({ kind: 'Vpc', name: 'x' })).toBe(false);
    expect(s.topology().switch.size).toBe(0);
  });

  it('keeps a row with its first owner and reports the second', () => {
    const s = new DesiredState();
    s.set({ kind: 'Subnet', name: 'a' }, { rows: [{ table: 'switch', row: ls('same') }] });
    const issues = s.set(
      { kind: 'Subnet', name: 'b' },
      { rows: [{ table: 'switch', row: ls('same', { otherConfig: { x: '1' } }) }] },
    );
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'row-owned',
        table: 'switch',
        key: 'same',
        heldBy: { kind: 'Subnet', name: 'a' },
      }),
    ]);
    expect(s.ownerOf('switch', 'same')).toEqual({ kind: 'Subnet', name: 'a' });
    expect(s.row('switch', 'same')?.otherConfig).toEqual({});
    // Once the first owner lets go, the second may take it.
    s.delete({ kind: 'Subnet', name: 'a' });
    expect(s.set({ kind: 'Subnet', name: 'b' }, { rows: [{ table: 'switch', row: ls('same') }] })).toEqual([]);
    expect(s.ownerOf('switch', 'same')).toEqual({ kind: 'Subnet', name: 'b' });
  });

  it('counts set members contributed by several owners', () => {
    const s = new DesiredState();
    s.set({ kind: 'Test', name: 'np' }, { rows: [{ table: 'portGroup', row: pg('g', ['base']) }] });
    s.set(
      { kind: 'Pod', namespace: 'default', name: '1' },
      { contributions: [{ table: 'portGroup', key: 'g', column: 'ports', members: ['p1', 'shared'] }] },
    );
    s.set(
      { kind: 'Pod', namespace: 'default', name: '2' },
      { contributions: [{ table: 'portGroup', key: 'g', column: 'ports', members: ['p2', 'shared'] }] },
    );
    expect(new Set(s.row('portGroup', 'g')?.ports)).toEqual(new Set(['base', 'p1', 'p2', 'shared']));
    s.takeDirty();
    s.delete({ kind: 'Pod', namespace: 'default', name: '1' });
    expect(dirtyOf(s)).toEqual({ portGroup: ['g'] });
    expect(new Set(s.row('portGroup', 'g')?.ports)).toEqual(new Set(['base', 'p2', 'shared']));
    s.delete({ kind: 'Pod', namespace: 'default', name: '2' });
    expect(s.row('portGroup', 'g')?.ports).toEqual(['base']);
  });

  it('keeps contributions to a row nobody owns yet, and shows them when it appears', () => {
    const s = new DesiredState();
    s.set(
      { kind: 'Service', namespace: 'default', name: 'web' },
      {
        contributions: [
          { table: 'loadBalancer', key: 'lb', column: 'vips', entries: { '10.96.0.10:80': '10.16.0.2:8080' } },
        ],
      },
    );
    expect(s.row('loadBalancer', 'lb')).toBeUndefined();
    s.set({ kind: 'Vpc', name: 'ovn-cluster' }, { rows: [{ table: 'loadBalancer', row: lb('lb') }] });
    expect(s.row('loadBalancer', 'lb')?.vips).toEqual({ '10.96.0.10:80': '10.16.0.2:8080' });
  });

  it('gives a map key to its first contributor and reports a conflicting value', () => {
    const s = new DesiredState();
    s.set({ kind: 'Vpc', name: 'ovn-cluster' }, { rows: [{ table: 'loadBalancer', row: lb('lb') }] });
    const vip = '10.96.0.10:80';
    s.set(
      { kind: 'Service', namespace: 'default', name: 'a' },
      { contributions: [{ table: 'loadBalancer', key: 'lb', column: 'vips', entries: { [vip]: 'A' } }] },
    );
    const issues = s.set(
      { kind: 'Service', namespace: 'default', name: 'b' },
      {
        contributions: [{ table: 'loadBalancer', key: 'lb', column: 'vips', entries: { [vip]: 'B' } }],
      },
    );
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'map-key-conflict',
        column: 'vips',
        heldBy: { kind: 'Service', namespace: 'default', name: 'a' },
      }),
    ]);
    expect(s.row('loadBalancer', 'lb')?.vips).toEqual({ [vip]: 'A' });
    s.delete({ kind: 'Service', namespace: 'default', name: 'a' });
    expect(s.row('loadBalancer', 'lb')?.vips).toEqual({ [vip]: 'B' });
    s.set(
      { kind: 'Service', namespace: 'default', name: 'b' },
      { contributions: [{ table: 'loadBalancer', key: 'lb', column: 'vips', entries: { [vip]: 'B2' } }] },
    );
    expect(s.row('loadBalancer', 'lb')?.vips).toEqual({ [vip]: 'B2' });
  });

  it('an owner that contributed nothing to a cell can drop it', () => {
    const s = new DesiredState();
    const owner = { kind: 'Pod', namespace: 'default', name: 'a' };
    s.set(owner, { contributions: [{ table: 'portGroup', key: 'g', column: 'ports', members: [] }] });
    expect(s.set(owner, {})).toEqual([]);
    expect(s.has(owner)).toBe(false);
  });

  it('refuses contributions to columns that are not sets or maps of the right kind', () => {
    const s = new DesiredState();
    const issues = s.set(
      { kind: 'Test', name: 'x' },
      {
        contributions: [
          { table: 'switch', key: 'a', column: 'name', members: ['y'] },
          { table: 'portGroup', key: 'g', column: 'ports', entries: { a: 'b' } },
        ],
      },
    );
    expect(issues.map((i) => i.code)).toEqual(['not-a-member-column', 'not-a-member-column']);
    expect(s.dirtyCount).toBe(0);
  });
});
