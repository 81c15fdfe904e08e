/**
 * Questions about a match that do not need a packet: its top-level
 * conjuncts (each holds independently, prerequisites included, so a
 * simulator can index ACLs by one of them), the fields it names, the packet
 * storage an evaluation may read, and the sets it refers to.
 */
import type { MatchExpr } from './ast.ts';
import { predicateExpr, symtabExpr } from './expansions.ts';
import { type MatchStorageKey, lookupSymbol } from './fields.ts';
import { forEachComparison } from './walk.ts';

/**
 * The operands of the top-level `&&`, nested `&&` flattened; any other
 * expression is its own single conjunct. `evaluate(e)` is true iff every
 * conjunct evaluates true (OVN attaches prerequisites per comparison).
 *
 * @example conjuncts(parseMatch('outport == @pg && (ip4 && tcp.dst == 80)')).map(printMatch)
 * // ['outport == @pg', 'ip4', 'tcp.dst == 80']
 */
export function conjuncts(expr: MatchExpr): MatchExpr[] {
  return expr.kind === 'and' ? expr.args.flatMap(conjuncts) : [expr];
}

/**
 * The field names compared in `expr`, as written (no slices, no expansion).
 *
 * @example fieldsOf(parseMatch('ip4.src == $as && 1 <= tcp.dst <= 9')) // Set {'ip4.src', 'tcp.dst'}
 */
export function fieldsOf(expr: MatchExpr): Set<string> {
  const out = new Set<string>();
  forEachComparison(expr, (c) => out.add(c.field.name));
  return out;
}

export type PacketKey = MatchStorageKey | 'inport' | 'outport';

/**
 * Every packet key an evaluation of `expr` may read, through prerequisites
 * and predicate expansions too (`tcp.dst == 80` reads `tcp.dst`, `ip.proto`
 * and `eth.type`).
 */
export function storageKeysOf(expr: MatchExpr): Set<PacketKey> {
  const out = new Set<PacketKey>();
  const seen = new Set<string>();
  const visit = (e: MatchExpr): void =>
    forEachComparison(e, (c) => {
      const sym = lookupSymbol(c.field.name);
      if (!sym || seen.has(sym.name)) return;
      seen.add(sym.name);
      if (sym.kind === 'string') out.add(sym.name);
      else if (sym.kind === 'int') out.add(sym.storage);
      else visit(predicateExpr(sym));
      if (sym.prereqs !== undefined) visit(symtabExpr(sym.prereqs));
    });
  visit(expr);
  return out;
}

/**
 * The address sets (`$name`) and port groups (`@name`) `expr` names.
 *
 * @example referencedSets(parseMatch('inport == @pg && ip4.dst == $pg_ip4'))
 * // { addressSets: Set {'pg_ip4'}, portGroups: Set {'pg'} }
 */
export function referencedSets(expr: MatchExpr): { addressSets: Set<string>; portGroups: Set<string> } {
  const addressSets = new Set<string>();
  const portGroups = new Set<string>();
  forEachComparison(expr, (c) => {
    for (const it of c.value.kind === 'set' ? c.value.items : [c.value]) {
      if (it.kind === 'address-set') addressSets.add(it.name);
      else if (it.kind === 'port-group') portGroups.add(it.name);
    }
  });
  return { addressSets, portGroups };
}
