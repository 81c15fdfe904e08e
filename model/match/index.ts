/**
 * model/match: the OVN match language of OVN 23.03 (ovn-sb(5), "Logical_Flow
 * TABLE / match"): lexer, parser with OVN's own rejections, canonical
 * printer, the symbol table with prerequisites, and two evaluators over a
 * packet plus an environment of address sets and port groups: a reference
 * one (evaluateMatch) and a compiled one for hot paths (compileMatch).
 * Generators for property tests live in arbitrary.ts (test-only; not
 * exported here).
 */
export * from './ast.ts';
export * from './build.ts';
export * from './errors.ts';
export * from './fields.ts';
export { nextToken, tokenize, type Token, type TokenType } from './lexer.ts';
export { parseMatch, tryParseMatch, type MatchParseResult } from './parser.ts';
export { printMatch, printConstant, printField, printInt, printValue, quoteString } from './printer.ts';
export { constantWidth } from './checks.ts';
export {
  type MatchEnv,
  type MatchEnvIssue,
  type MatchEnvIssueCode,
  type NameMap,
  checkMatchEnv,
  parseAddressSetEntry,
} from './env.ts';
export { type MatchPacket, type MatchFieldValues, packetFromRecord } from './packet.ts';
export { evaluateMatch } from './evaluate.ts';
export { compileMatch, type CompiledMatch } from './compile.ts';
export { conjuncts, fieldsOf, referencedSets, storageKeysOf, type PacketKey } from './analyze.ts';
export { type Comparison, forEachComparison } from './walk.ts';
