/**
 * Building topologies from row lists, and the empty topology. Duplicate keys
 * are reported, never silently collapsed: the first row wins and every later
 * one becomes a `duplicate-key` issue.
 */
import type { Issue } from '../issues.ts';
import { keyOf } from './keys.ts';
import { TABLE_ORDER } from './tables.ts';
import type { TableName, Tables, Topology } from './types.ts';

/** Row lists per table, any table may be omitted. */
export type TopologyInput = { readonly [T in TableName]?: readonly Tables[T][] };

export function emptyTopology(): Topology {
  const t = {} as { [T in TableName]: Map<string, Tables[T]> };
  for (const table of TABLE_ORDER) (t as Record<TableName, Map<string, unknown>>)[table] = new Map();
  return t;
}

/**
 * @example
 * const { topology, issues } = buildTopology({ switch: [{ name: 'ovn-default', loadBalancers: [], otherConfig: {},
 * externalIds: {} }] });
 */
export function buildTopology(input: TopologyInput): { topology: Topology; issues: Issue[] } {
  const issues: Issue[] = [];
  const out = {} as Record<TableName, Map<string, unknown>>;
  for (const table of TABLE_ORDER) {
    const map = new Map<string, unknown>();
    const rows = (input[table] ?? []) as readonly Tables[typeof table][];
    for (const row of rows) {
      const key = keyOf(table, row);
      if (map.has(key)) {
        issues.push({
          code: 'duplicate-key',
          path: [table, key],
          message: `${table} ${JSON.stringify(key)} is defined more than once; the first definition is kept`,
        });
        continue;
      }
      map.set(key, row);
    }
    out[table] = map;
  }
  return { topology: out as unknown as Topology, issues };
}

/** Rows of every table as plain lists (table order), e.g. for JSON output. */
export function topologyRows(t: Topology): { [T in TableName]: Tables[T][] } {
  const out = {} as Record<TableName, unknown[]>;
  for (const table of TABLE_ORDER) out[table] = [...t[table].values()];
  return out as { [T in TableName]: Tables[T][] };
}
