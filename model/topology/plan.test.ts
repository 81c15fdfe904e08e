import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../test/fc.ts';
import { formatIssues } from '../issues.ts';
import { arbitraryTopology, arbitraryTopologyPair } from './arbitrary.ts';
import { fixtureInput, topologyOf } from './fixture.ts';
import {
  type Operation,
  type Plan,
  PlanError,
  TABLE_ORDER,
  type TableName,
  type Tables,
  type Topology,
  applyPlan,
  diffRow,
  emptyTopology,
  plan,
  planSummary,
  rowsEqual,
  validateReferences,
} from './index.ts';

/** Same keys in every table and rowsEqual rows; returns the first difference, for the failure message. */
function topologyDiff(a: Topology, b: Topology): string | undefined {
  for (const table of TABLE_ORDER) {
    const ma = a[table] as ReadonlyMap<string, Tables[typeof table]>;
    const mb = b[table] as ReadonlyMap<string, Tables[typeof table]>;
    if (ma.size !== mb.size) return `${table}: ${ma.size} rows vs ${mb.size}`;
    for (const [key, row] of ma) {
      const other = mb.get(key);
      if (other === undefined) return `${table} ${key}: missing`;
      if (!rowsEqual(table, row, other)) return `${table} ${key}: ${JSON.stringify(row)} vs ${JSON.stringify(other)}`;
    }
  }
  return undefined;
}

/** Rows that differ between a and b: keys in one only, plus common keys with unequal rows. */
function differingRows(a: Topology, b: Topology): number {
  let n = 0;
  for (const table of TABLE_ORDER) {
    const ma = a[table] as ReadonlyMap<string, Tables[typeof table]>;
    const mb = b[table] as ReadonlyMap<string, Tables[typeof table]>;
    for (const [key, row] of ma) {
      const other = mb.get(key);
      if (other === undefined || !rowsEqual(table, row, other)) n++;
    }
    for (const key of mb.keys()) if (!ma.has(key)) n++;
  }
  return n;
}

/** The same topology with every table's insertion order reversed. */
function reversed(t: Topology): Topology {
  const out = {} as Record<TableName, ReadonlyMap<string, unknown>>;
  for (const table of TABLE_ORDER)
    out[table] = new Map<string, unknown>([...(t[table] as ReadonlyMap<string, unknown>)].reverse());
  return out as unknown as Topology;
}

const indexOf = (p: Plan, pred: (op: Operation) => boolean) => p.findIndex(pred);

describe('plan properties', () => {
  it('applyPlan(plan(a, b), a) equals b', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair(), ([a, b]) => {
        expect(topologyDiff(applyPlan(plan(a, b), a), b)).toBeUndefined();
      }),
      fcParams(300),
    );
  });

  it('plan(a, a) is empty, also when set columns are reordered', () => {
    fc.assert(
      fc.property(arbitraryTopology(), (a) => {
        expect(plan(a, a)).toEqual([]);
        expect(plan(a, reversed(a))).toEqual([]);
      }),
      fcParams(200),
    );
  });

  it('has exactly one operation per differing row, and updates carry only changed fields', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair(), ([a, b]) => {
        const p = plan(a, b);
        expect(p.length).toBe(differingRows(a, b));
        for (const op of p) {
          if (op.op !== 'update') continue;
          const from = a[op.table].get(op.key) as Tables[typeof op.table];
          const to = b[op.table].get(op.key) as Tables[typeof op.table];
          expect(Object.keys(op.changes).sort()).toEqual(Object.keys(diffRow(op.table, from, to) ?? {}).sort());
          expect(Object.keys(op.changes).length).toBeGreaterThan(0);
        }
      }),
      fcParams(300),
    );
  });

  it('round-trips pairs whose matches come from the match module’s generator', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair({ randomMatches: true }), ([a, b]) => {
        expect(topologyDiff(applyPlan(plan(a, b), a), b)).toBeUndefined();
        expect(plan(a, a)).toEqual([]);
      }),
      fcParams(100),
    );
  });

  it('keeps every reference valid after each operation', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair(), ([a, b]) => {
        let t = a;
        for (const [i, op] of plan(a, b).entries()) {
          t = applyPlan([op], t);
          const issues = validateReferences(t);
          expect(issues, `after operation ${i} (${op.op} ${op.table} ${op.key}):\n${formatIssues(issues)}`).toEqual([]);
        }
      }),
      fcParams(300),
    );
  });

  it('does not depend on the insertion order of the maps', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair(), ([a, b]) => {
        expect(plan(reversed(a), reversed(b))).toEqual(plan(a, b));
      }),
      fcParams(100),
    );
  });

  it('does not modify its inputs', () => {
    fc.assert(
      fc.property(arbitraryTopologyPair(), ([a, b]) => {
        // Deep copies taken before: every row of both inputs is compared after, not just the sizes.
        const before = [structuredClone(a), structuredClone(b)];
        applyPlan(plan(a, b), a);
        expect([a, b]).toEqual(before);
      }),
      fcParams(50),
    );
  });
});

describe('plan ordering', () => {
  it('creates in table order, then updates, then deletes in reverse table order', () => {
    const full = topologyOf(fixtureInput());
    const up = plan(emptyTopology(), full);
    expect(up.every((op) => op.op === 'create')).toBe(true);
    const tables = up.map((op) => TABLE_ORDER.indexOf(op.table));
    expect(tables).toEqual([...tables].sort((x, y) => x - y));
    const down = plan(full, emptyTopology());
    expect(down.map((op) => op.op === 'delete')).not.toContain(false);
    expect(down.map((op) => op.table)).toEqual([...up].reverse().map((op) => op.table));
  });

  it('drops a port from a port group before deleting the port', () => {
    const a = topologyOf(fixtureInput());
    const input = fixtureInput();
    input.switchPort = input.switchPort.filter((p) => p.name !== 'web-0.default');
    input.portGroup[0] = { ...input.portGroup[0]!, ports: [] };
    input.nat = input.nat.filter((n) => n.logicalPort === undefined);
    const p = plan(a, topologyOf(input));
    const pgUpdate = indexOf(p, (op) => op.op === 'update' && op.table === 'portGroup');
    const portDelete = indexOf(p, (op) => op.op === 'delete' && op.key === 'web-0.default');
    expect(pgUpdate).toBeGreaterThanOrEqual(0);
    expect(pgUpdate).toBeLessThan(portDelete);
    expect(p[pgUpdate]).toEqual({ op: 'update', table: 'portGroup', key: 'pg0', changes: { ports: [] } });
  });

  it('drops a load balancer from a switch before deleting it, and moves a port after creating its new switch', () => {
    const a = topologyOf(fixtureInput());
    const input = fixtureInput();
    input.loadBalancer = [];
    input.switch[0] = { ...input.switch[0]!, loadBalancers: [] };
    input.router[0] = { ...input.router[0]!, loadBalancers: [] };
    input.switch.push({ name: 'ls1', loadBalancers: [], otherConfig: {}, externalIds: {} });
    input.switchPort[1] = { ...input.switchPort[1]!, switch: 'ls1' };
    const p = plan(a, topologyOf(input));
    const lbDelete = indexOf(p, (op) => op.op === 'delete' && op.table === 'loadBalancer');
    expect(indexOf(p, (op) => op.op === 'update' && op.table === 'switch')).toBeLessThan(lbDelete);
    expect(indexOf(p, (op) => op.op === 'update' && op.table === 'router')).toBeLessThan(lbDelete);
    const move = indexOf(p, (op) => op.op === 'update' && op.key === 'web-0.default');
    expect(indexOf(p, (op) => op.op === 'create' && op.key === 'ls1')).toBeLessThan(move);
    expect(p[move]).toEqual({ op: 'update', table: 'switchPort', key: 'web-0.default', changes: { switch: 'ls1' } });
  });

  it('an unset optional field is present in the changes with value undefined', () => {
    const a = topologyOf(fixtureInput());
    const input = fixtureInput();
    const { dhcpv6Options: _drop, ...port } = input.switchPort[1]!;
    input.switchPort[1] = port;
    const p = plan(a, topologyOf(input));
    expect(p).toHaveLength(1);
    const op = p[0]!;
    expect(op.op === 'update' && 'dhcpv6Options' in op.changes && op.changes.dhcpv6Options === undefined).toBe(true);
    const after = applyPlan(p, a).switchPort.get('web-0.default');
    expect(after && 'dhcpv6Options' in after).toBe(false);
  });
});

describe('applyPlan errors', () => {
  const t = topologyOf(fixtureInput());
  const as0 = t.addressSet.get('as0')!;
  const cases: [string, Plan, string][] = [
    ['create of an existing row', [{ op: 'create', table: 'addressSet', key: 'as0', row: as0 }], 'row-exists'],
    [
      'update of a missing row',
      [{ op: 'update', table: 'addressSet', key: 'as9', changes: { addresses: [] } }],
      'missing-row',
    ],
    ['delete of a missing row', [{ op: 'delete', table: 'switch', key: 'ls9' }], 'missing-row'],
    ['create under another key', [{ op: 'create', table: 'addressSet', key: 'as9', row: as0 }], 'key-mismatch'],
    [
      'update of a key column',
      [{ op: 'update', table: 'addressSet', key: 'as0', changes: { name: 'as9' } }],
      'key-mismatch',
    ],
  ];
  it.each(cases)('%s', (_, p, code) => {
    try {
      applyPlan(p, t);
      expect.unreachable('applyPlan should throw');
    } catch (e) {
      expect(e).toBeInstanceOf(PlanError);
      expect((e as PlanError).code).toBe(code);
      expect((e as PlanError).index).toBe(0);
      expect((e as PlanError).message).toContain(`${p[0]!.table} ${JSON.stringify(p[0]!.key)}`);
    }
  });

  it('reports the index of the failing operation and leaves the input alone', () => {
    const p: Plan = [
      { op: 'delete', table: 'addressSet', key: 'as0' },
      { op: 'delete', table: 'addressSet', key: 'as0' },
    ];
    expect(() => applyPlan(p, t)).toThrow(expect.objectContaining({ code: 'missing-row', index: 1 }));
    expect(t.addressSet.has('as0')).toBe(true);
  });
});

describe('rowsEqual', () => {
  const base = topologyOf(fixtureInput());
  const lrp = base.routerPort.get('lr0-ls0')!;
  it('compares set columns as sets and maps by entries', () => {
    expect(rowsEqual('routerPort', lrp, { ...lrp, networks: [...lrp.networks].reverse() })).toBe(true);
    expect(
      rowsEqual('routerPort', lrp, { ...lrp, networks: [lrp.networks[0]!, lrp.networks[0]!, lrp.networks[1]!] }),
    ).toBe(true);
    expect(rowsEqual('routerPort', lrp, { ...lrp, networks: [lrp.networks[0]!] })).toBe(false);
    expect(rowsEqual('routerPort', lrp, { ...lrp, options: { a: undefined } as never })).toBe(true);
    expect(rowsEqual('routerPort', lrp, { ...lrp, options: { a: '1' } })).toBe(false);
    expect(rowsEqual('routerPort', lrp, { ...lrp, gatewayChassis: [{ priority: 100, chassisName: 'node-1' }] })).toBe(
      true,
    );
    expect(rowsEqual('routerPort', lrp, { ...lrp, gatewayChassis: [{ chassisName: 'node-1', priority: 1 }] })).toBe(
      false,
    );
  });

  it('treats an absent optional field like one set to undefined, and not like a value', () => {
    const { peer: _p, ...noPeer } = base.routerPort.get('lr0-lr1')!;
    expect(rowsEqual('routerPort', noPeer, { ...noPeer, peer: undefined })).toBe(true);
    expect(rowsEqual('routerPort', noPeer, { ...noPeer, peer: 'x' })).toBe(false);
  });

  it('planSummary counts operations per table and kind', () => {
    const input = fixtureInput();
    input.addressSet.push({ name: 'as1', addresses: [], externalIds: {} });
    input.portGroup[0] = { ...input.portGroup[0]!, externalIds: { a: 'b' } };
    input.qos = [];
    expect(planSummary(plan(base, topologyOf(input)))).toEqual({
      addressSet: { create: 1, update: 0, mutate: 0, delete: 0 },
      portGroup: { create: 0, update: 1, mutate: 0, delete: 0 },
      qos: { create: 0, update: 0, mutate: 0, delete: 1 },
    });
  });
});

describe('plan at cluster scale (issue 8, defect 1)', () => {
  it('plans 150,000 new rows of one table and 150,000 updates (no argument-spread limit)', () => {
    const n = 150_000;
    const ports = new Map<string, Tables['switchPort']>();
    for (let i = 0; i < n; i++) {
      const name = `p${i}`;
      ports.set(name, { name, switch: 'ls', type: '', addresses: [], portSecurity: [], options: {}, externalIds: {} });
    }
    const desired = { ...emptyTopology(), switchPort: ports };
    const creates = plan(emptyTopology(), desired);
    expect(creates).toHaveLength(n);
    expect(creates[n - 1]).toMatchObject({ op: 'create', table: 'switchPort' });
    const changed = new Map([...ports].map(([k, p]) => [k, { ...p, externalIds: { v: '2' } }]));
    const updates = plan(desired, { ...desired, switchPort: changed });
    expect(updates).toHaveLength(n);
    expect(updates.every((o) => o.op === 'update')).toBe(true);
  });
});
