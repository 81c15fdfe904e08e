/**
 * ACL indexing. Most ACLs (every NetworkPolicy ACL Kube-OVN writes) require
 * a particular port: `inport == @pg && ...` or `outport == @pg && ...`. Such
 * an ACL can only match packets from (or to) the ports of that group, so it is
 * filed under each of those ports; a probe then evaluates the ACLs of its own
 * ports plus the few that require no port, instead of every ACL of the switch.
 */
import type { MatchExpr, MatchValue } from '../../model/match/index.ts';
import type { AclIndex, AclRule } from './types.ts';

type PortField = 'inport' | 'outport';

function portsOfValue(v: MatchValue, portGroups: ReadonlyMap<string, readonly string[]>): Set<string> | undefined {
  const out = new Set<string>();
  const items = v.kind === 'set' ? v.items : [v];
  for (const c of items) {
    if (c.kind === 'string') out.add(c.value);
    else if (c.kind === 'port-group') for (const p of portGroups.get(c.name) ?? []) out.add(p);
    else return undefined;
  }
  return out;
}

/**
 * The port requirement of a match, if its top level (or one conjunct of a
 * top-level `&&`) is `inport == <ports>` or `outport == <ports>`. When both
 * appear, the smaller set wins (fewer index entries, same correctness).
 */
export function portRequirement(
  expr: MatchExpr,
  portGroups: ReadonlyMap<string, readonly string[]>,
): { field: PortField; ports: ReadonlySet<string> } | undefined {
  const conjuncts = expr.kind === 'and' ? expr.args : [expr];
  let best: { field: PortField; ports: Set<string> } | undefined;
  for (const c of conjuncts) {
    if (c.kind !== 'cmp' || c.op !== '==' || c.field.slice !== undefined) continue;
    if (c.field.name !== 'inport' && c.field.name !== 'outport') continue;
    const ports = portsOfValue(c.value, portGroups);
    if (ports === undefined) continue;
    if (best === undefined || ports.size < best.ports.size) best = { field: c.field.name, ports };
  }
  return best;
}

const byPriority = (a: AclRule, b: AclRule): number => b.priority - a.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Build the index of one stage's ACLs. */
export function indexAcls(rules: readonly AclRule[]): AclIndex {
  const byInport = new Map<string, AclRule[]>();
  const byOutport = new Map<string, AclRule[]>();
  const rest: AclRule[] = [];
  for (const r of rules) {
    if (r.portReq === undefined) {
      rest.push(r);
      continue;
    }
    const target = r.portReq.field === 'inport' ? byInport : byOutport;
    for (const p of r.portReq.ports) {
      const list = target.get(p) ?? [];
      list.push(r);
      target.set(p, list);
    }
  }
  for (const list of byInport.values()) list.sort(byPriority);
  for (const list of byOutport.values()) list.sort(byPriority);
  rest.sort(byPriority);
  return { byInport, byOutport, rest, size: rules.length };
}

const EMPTY: readonly AclRule[] = [];

/**
 * The candidate ACLs for a packet from `inport` to `outport`, highest
 * priority first (ties in key order): the ACLs filed under either port plus
 * those that require none. Usually only one list is non-empty and is
 * returned as is; otherwise the lists are merged.
 */
export function candidateAcls(index: AclIndex, inport: string, outport: string): readonly AclRule[] {
  const a = index.byInport.get(inport) ?? EMPTY;
  const b = outport === '' ? EMPTY : (index.byOutport.get(outport) ?? EMPTY);
  const c = index.rest;
  if (b.length === 0 && c.length === 0) return a;
  if (a.length === 0 && c.length === 0) return b;
  if (a.length === 0 && b.length === 0) return c;
  return [...a, ...b, ...c].sort(byPriority);
}
