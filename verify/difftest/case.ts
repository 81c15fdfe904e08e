/**
 * A difftest case (topology + the packet and where it enters) and its JSON
 * form, used by disagreement reports and the regression files: topology
 * rows per table with matches as OVN text, the packet as `packetToJSON`
 * prints it (every field as OVN prints it).
 */
import { parseIPv4, parseIPv6, parseMAC } from '../../model/addr/index.ts';
import { parseMatch, printMatch } from '../../model/match/index.ts';
import {
  buildTopology,
  TABLE_ORDER,
  type TableName,
  type Tables,
  type Topology,
  topologyRows,
} from '../../model/topology/index.ts';
import { FIELD_KIND, FIELD_ORDER, type FieldName } from '../../model/packet/fields.ts';
import { packetToJSON } from '../../model/packet/format.ts';
import type { Packet } from '../../model/packet/packet.ts';
import { materialize } from './materialize.ts';
import { resolvePacket } from './packet-spec.ts';
import type { CaseSpec } from './spec.ts';

export interface DiffCase {
  readonly topology: Topology;
  /** The logical port the packet enters by, and its switch. */
  readonly inport: string;
  readonly datapath: string;
  readonly packet: Packet;
  /** The simulator's LB backend choice (index mod the VIP's backend count); OVN is told the same backend. */
  readonly lbPick: number;
}

/**
 * @example buildCase(fc.sample(caseSpecArbitrary, 1)[0]).inport // 'pod0.ls0'
 */
export function buildCase(spec: CaseSpec): DiffCase {
  const { topology, inventory } = materialize(spec.topo);
  const { inport, datapath, packet } = resolvePacket(inventory, spec.packet);
  return { topology, inport, datapath, packet, lbPick: spec.lbPick };
}

export type RowsJSON = { readonly [T in TableName]?: readonly Record<string, unknown>[] };

export interface DiffCaseJSON {
  readonly rows: RowsJSON;
  readonly inport: string;
  readonly datapath: string;
  readonly packet: Readonly<Record<string, string>>;
  readonly lbPick: number;
}

const WITH_MATCH: ReadonlySet<TableName> = new Set<TableName>(['acl', 'qos', 'routerPolicy']);

/** Rows of the non-empty tables, matches printed. */
export function topologyToJSON(t: Topology): RowsJSON {
  const all = topologyRows(t);
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of TABLE_ORDER) {
    const rows = all[table] as unknown as Record<string, unknown>[];
    if (rows.length === 0) continue;
    out[table] = WITH_MATCH.has(table)
      ? rows.map((r) => ({ ...r, match: printMatch(r.match as Parameters<typeof printMatch>[0]) }))
      : rows;
  }
  return out;
}

export function topologyFromJSON(rows: RowsJSON): Topology {
  const input: Record<string, unknown[]> = {};
  for (const table of TABLE_ORDER) {
    const list = rows[table] ?? [];
    input[table] = WITH_MATCH.has(table) ? list.map((r) => ({ ...r, match: parseMatch(String(r.match)) })) : [...list];
  }
  const { topology, issues } = buildTopology(input as { [T in TableName]?: Tables[T][] });
  if (issues.length > 0) throw new Error(`difftest case: ${issues[0]!.message}`);
  return topology;
}

/** The inverse of `packetToJSON` (the `inner` tuple of ICMP errors is not kept). */
export function packetFromJSON(fields: Readonly<Record<string, string>>): Packet {
  const out: Record<string, number | bigint> = {};
  for (const f of FIELD_ORDER) {
    const text = fields[f];
    if (text === undefined) continue;
    out[f] = parseField(f, text);
  }
  return out as unknown as Packet;
}

function parseField(f: FieldName, text: string): number | bigint {
  switch (FIELD_KIND[f]) {
    case 'mac':
      return parseMAC(text);
    case 'ip4':
      return parseIPv4(text);
    case 'ip6':
      return parseIPv6(text);
    case 'hex':
      return Number.parseInt(text.replace(/^0x/, ''), 16);
    default:
      return Number(text);
  }
}

export function caseToJSON(c: DiffCase): DiffCaseJSON {
  return {
    rows: topologyToJSON(c.topology),
    inport: c.inport,
    datapath: c.datapath,
    packet: packetToJSON(c.packet),
    lbPick: c.lbPick,
  };
}

export function caseFromJSON(j: DiffCaseJSON): DiffCase {
  return {
    topology: topologyFromJSON(j.rows),
    inport: j.inport,
    datapath: j.datapath,
    packet: packetFromJSON(j.packet),
    lbPick: j.lbPick,
  };
}
