/**
 * The Open_vSwitch table descriptions checked against the schema the
 * generated row types (vswitch.gen.ts) come from, and the codec round trip
 * through a real ovsdb-server on that schema: rows written from values, read
 * back through a cache that monitors only the described columns, give the
 * same values.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OvsdbServer, VSWITCH_SCHEMA, makeTempDir, requireOvn, startOvsdbServer } from '../control-plane/index.ts';
import { type CacheRow, OvsdbSession, parseSchema, vswitch } from '../ovsdb/index.ts';
import { type ColumnClaim, type TableClaim, checkClaims } from '../ovsdb/schema/claims.ts';
import { removeTempDir } from '../ovsdb/testing/nb-helpers.ts';
import { fromOvsRow, toOvsColumns } from './codec.ts';
import {
  OVS_INDEXES,
  OVS_MONITOR,
  OVS_NAME_ID,
  OVS_TABLES,
  OVS_TABLE_ORDER,
  ovsFields,
  ovsTableSpec,
} from './tables.ts';
import type { OvsTableName, OvsTables } from './types.ts';

const schema = parseSchema(JSON.parse(readFileSync(VSWITCH_SCHEMA, 'utf8')));

function claims(): { columns: ColumnClaim[]; tables: TableClaim[] } {
  const columns: ColumnClaim[] = [];
  const tables: TableClaim[] = [];
  for (const t of OVS_TABLE_ORDER) {
    const table = OVS_TABLES[t].table;
    tables.push({ table, root: OVS_TABLES[t].isRoot, by: t });
    for (const [field, f] of ovsFields(t)) {
      const ref = f.ref === undefined ? null : { table: OVS_TABLES[f.ref.table].table, strength: f.ref.strength };
      columns.push({ table, column: f.column, shape: f.kind, ref, by: `${t}.${field}` });
    }
    for (const c of ovsTableSpec(t).monitorOnly ?? [])
      columns.push({ table, column: c, shape: 'scalar', ref: null, by: `${t} (monitored)` });
  }
  return { columns, tables };
}

describe('Open_vSwitch table descriptions against the schema', () => {
  it('the schema read is the one the generated row types come from', () => {
    expect(`${schema.name} ${schema.version} ${schema.cksum}`).toBe(
      `${vswitch.SCHEMA_NAME} ${vswitch.SCHEMA_VERSION} ${vswitch.SCHEMA_CKSUM}`,
    );
  });

  it('every column named exists with its shape and reference; root and non-root tables as described', () => {
    const { columns, tables } = claims();
    expect(checkClaims(schema, columns, tables).map((p) => p.message)).toEqual([]);
  });

  it('rows found by name have a unique index on name', () => {
    for (const t of OVS_TABLE_ORDER)
      if (OVS_TABLES[t].identity === 'name')
        expect(vswitch.UNIQUE_INDEXES[OVS_TABLES[t].table], t).toContainEqual(['name']);
  });

  it('a wrong reference is caught', () => {
    const wrong: ColumnClaim = {
      table: 'QoS',
      column: 'queues',
      shape: 'map',
      ref: { table: 'Queue', strength: 'weak' },
      by: 'x',
    };
    expect(checkClaims(schema, [wrong], []).map((p) => p.code)).toEqual(['wrong-ref']);
  });
});

/** The value with its set fields sorted (sets come back in the server's order). */
function sortSets<T extends OvsTableName>(t: T, v: OvsTables[T] | undefined): unknown {
  if (v === undefined) return v;
  const out: Record<string, unknown> = { ...v };
  for (const [field, f] of ovsFields(t)) if (f.kind === 'set') out[field] = [...(out[field] as string[])].sort();
  return out;
}

const VALUES: { readonly [T in OvsTableName]: readonly OvsTables[T][] } = {
  root: [{ bridges: ['br-int'], externalIds: { 'system-id': 'node-1', 'ovn-encap-ip': '10.0.0.1' }, otherConfig: {} }],
  bridge: [
    {
      name: 'br-int',
      ports: ['br-int', 'veth1'],
      failMode: 'secure',
      datapathType: 'netdev',
      protocols: ['OpenFlow13', 'OpenFlow15'],
      otherConfig: { 'disable-in-band': 'true' },
      externalIds: {},
    },
  ],
  port: [
    { name: 'br-int', interfaces: ['br-int'], otherConfig: {}, externalIds: {} },
    { name: 'veth1', interfaces: ['veth1'], qos: 'veth1-qos', tag: 7, otherConfig: {}, externalIds: { pod: 'web-0' } },
  ],
  interface: [
    { name: 'br-int', type: 'internal', options: {}, ingressPolicingRate: 0, ingressPolicingBurst: 0, externalIds: {} },
    {
      name: 'veth1',
      type: 'dummy',
      options: {},
      mtuRequest: 1400,
      ingressPolicingRate: 1000,
      ingressPolicingBurst: 100,
      externalIds: { 'iface-id': 'web-0.default', 'attached-mac': '0a:58:0a:10:00:05' },
    },
  ],
  qos: [
    {
      name: 'veth1-qos',
      type: 'linux-htb',
      queues: { '0': 'veth1-q0', '1': 'veth1-q1' },
      otherConfig: { 'max-rate': '1000000' },
      externalIds: { pod: 'web-0' },
    },
  ],
  queue: [
    { name: 'veth1-q0', otherConfig: { 'max-rate': '1000000' }, externalIds: {} },
    { name: 'veth1-q1', dscp: 10, otherConfig: { 'min-rate': '1000' }, externalIds: {} },
  ],
};

describe.skipIf(!requireOvn('vswitch codec'))('Open_vSwitch codec against ovsdb-server', () => {
  let dir: string | undefined;
  let server: OvsdbServer;
  let s: OvsdbSession<vswitch.Tables>;

  beforeAll(async () => {
    dir = await makeTempDir('vsw');
    server = await startOvsdbServer({ dir, name: 'conf', schema: VSWITCH_SCHEMA });
    s = await OvsdbSession.open<vswitch.Tables>({
      remotes: server.remote,
      db: 'Open_vSwitch',
      tables: OVS_MONITOR,
      indexes: OVS_INDEXES,
    });
  });
  afterAll(async () => {
    s?.close();
    await server?.stop();
    await removeTempDir(dir);
  });

  it('values written through the codec read back equal, references by name resolved both ways', async () => {
    const uuidName = (t: OvsTableName, name: string) => `${t}_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
    const ops = OVS_TABLE_ORDER.flatMap((t) =>
      (VALUES[t] as readonly OvsTables[typeof t][]).map((v) =>
        s.ops.insert(OVS_TABLES[t].table, toOvsColumns(t, v, uuidName) as never, {
          uuidName: uuidName(t, t === 'root' ? 'root' : (v as { name: string }).name),
        }),
      ),
    );
    await s.transact(ops);
    const nameOf = (t: OvsTableName, uuid: string) => {
      const row = s.cache.get(OVS_TABLES[t].table, uuid) as CacheRow | undefined;
      if (row === undefined) return undefined;
      return typeof row.name === 'string' ? row.name : (row.external_ids as Record<string, string>)[OVS_NAME_ID];
    };
    for (const t of OVS_TABLE_ORDER) {
      const back = s.cache.rows(OVS_TABLES[t].table).map((r) => fromOvsRow(t, r as never, nameOf));
      expect(
        back.map((v) => sortSets(t, v)),
        t,
      ).toEqual(expect.arrayContaining(VALUES[t].map((v) => sortSets(t, v as OvsTables[typeof t]))));
      expect(back, t).toHaveLength(VALUES[t].length);
    }
  });
});
