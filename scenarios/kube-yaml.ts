/**
 * YAML documents read into JSON values the way kubectl reads them
 * (sigs.k8s.io/yaml: go-yaml v2, then JSON), one document at a time:
 * - scalars resolved as go-yaml v2 resolves them (yaml-scalar.ts);
 * - merge keys `<<` resolved as go-yaml v2 resolves them: the merged keys are
 *   set where the `<<` stands, so a key written after it overrides the merged
 *   value and a key written before it is overridden; in a list of mappings
 *   the earlier mapping wins;
 * - keys converted to strings as sigs.k8s.io/yaml converts them (`yes:` is
 *   "true", `80:` is "80"); a null, collection or fractional key is refused;
 * - aliases expanded, with go-yaml's limit on expansion (an alias bomb is
 *   refused, not expanded);
 * - anything that has no JSON form is refused naming file and line: tags other
 *   than the JSON types (`!!binary`, `!!timestamp`, `!!set`, `!!omap`, `!foo`),
 *   `.inf`/`.nan`, integers JavaScript cannot hold exactly;
 * - collections nested deeper than {@link MAX_NESTING} are refused from the
 *   parser's token tree, before anything recursive (the `yaml` package's
 *   composer and any walk of the value) sees them.
 * A key repeated in one mapping is refused (kubectl would keep one of them
 * silently).
 */
import {
  type CST,
  Composer,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  Parser,
  type Scalar,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { type ScenarioLoadErrorCode, ScenarioLoadError } from './load-error.ts';
import { meaningOfPlain, type ScalarMeaning } from './yaml-scalar.ts';

/**
 * Collections nested deeper than this are refused. Kube-OVN's own CRDs (the
 * deepest manifests in its repository) nest 26 deep; the `yaml` package's
 * composer runs out of stack at about 800 levels of flow nesting (less when
 * called deep in a stack), and V8 can even abort the process outright (a
 * failed regular expression compilation) instead of throwing. 128 leaves
 * room for real manifests and a wide margin below both.
 */
export const MAX_NESTING = 128;

/** The detail of a 'too-deep' error, from either reader (this one or kube-json.ts). */
export const TOO_DEEP = `collections nested more than ${MAX_NESTING} deep`;

/**
 * The detail of a 'value' error for an integer JavaScript cannot hold exactly, from either reader.
 *
 * @example inexactInteger('9007199254740993') // 'the integer 9007199254740993 is beyond 2^53, which ...'
 */
export const inexactInteger = (text: string): string =>
  `the integer ${text} is beyond 2^53, which JavaScript cannot hold exactly`;

/** One document: its JSON value, and what is needed to find the line of a field. */
export interface ReadDocument {
  /** 0-based index in the file. */
  readonly index: number;
  readonly value: unknown;
  /** The YAML node tree (keys are strings as written); null for JSON. */
  readonly contents: Node | null;
  readonly lines: LineCounter;
  /** 1-based line where the document starts. */
  readonly line: number;
}

const TAG = 'tag:yaml.org,2002:';
/** Tags of scalars whose value JSON can carry, as go-yaml resolves them. */
const SCALAR_TAGS: ReadonlySet<string> = new Set([
  '!',
  `${TAG}str`,
  `${TAG}int`,
  `${TAG}float`,
  `${TAG}bool`,
  `${TAG}null`,
]);
const shortTag = (tag: string) => (tag.startsWith(TAG) ? `!!${tag.slice(TAG.length)}` : tag);
const refusedTag = (tag: string) => `the tag ${shortTag(tag)} is not accepted: kovn reads only what converts to JSON`;

/**
 * The documents of one YAML file, each as kubectl would read it.
 *
 * @example
 * [...readYamlDocuments('a.yaml', 'a: &x {b: 1}\nc: {<<: *x, d: on}\n')][0].value
 * // { a: { b: 1 }, c: { b: 1, d: true } }
 * @throws ScenarioLoadError 'yaml', 'too-deep', 'tag' or 'value', naming file, document and line.
 */
export function* readYamlDocuments(file: string, text: string): Generator<ReadDocument> {
  const lines = new LineCounter();
  const composer = new Composer({ schema: 'failsafe', merge: false, uniqueKeys: false });
  let tokens = 0;
  let index = 0;
  const take = function* (docs: Iterable<Document.Parsed>) {
    for (const doc of docs) yield readDocument(file, index++, doc, lines);
  };
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    if (token.type === 'document') {
      const deep = firstTooDeep(token);
      if (deep !== undefined) fail(file, tokens, lines.linePos(deep).line, 'too-deep', TOO_DEEP);
      tokens++;
    }
    yield* take(composer.next(token));
  }
  yield* take(composer.end(false, text.length));
}

/** The offset of the first collection nested deeper than MAX_NESTING, found without recursion. */
function firstTooDeep(doc: CST.Document): number | undefined {
  const stack: [CST.Token | undefined, number][] = [[doc.value, 0]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [token, depth] = top;
    if (token?.type !== 'block-map' && token?.type !== 'block-seq' && token?.type !== 'flow-collection') continue;
    if (depth >= MAX_NESTING) return token.offset;
    for (const item of token.items) {
      if ('key' in item) stack.push([item.key ?? undefined, depth + 1]);
      stack.push([item.value, depth + 1]);
    }
  }
  return undefined;
}

function fail(file: string, doc: number, line: number, code: ScenarioLoadErrorCode, detail: string): never {
  throw new ScenarioLoadError(code, { file, doc, line }, '', detail);
}

function readDocument(file: string, index: number, doc: Document.Parsed, lines: LineCounter): ReadDocument {
  const line = lines.linePos(doc.range[0]).line;
  const err = doc.errors[0];
  if (err) fail(file, index, lines.linePos(err.pos[0]).line, 'yaml', err.message.split('\n')[0] ?? 'invalid YAML');
  const value = new ToJson(file, index, doc, lines).value(doc.contents, 0);
  return { index, value, contents: doc.contents, lines, line };
}

/** go-yaml v2's limit on alias expansion (its allowedAliasRatio): the share of decoded nodes that may come from aliases. */
function allowedAliasShare(decoded: number): number {
  if (decoded <= 400_000) return 0.99;
  if (decoded >= 4_000_000) return 0.1;
  return 0.99 - (0.89 * (decoded - 400_000)) / 3_600_000;
}

/** One document's node tree to a JSON value (recursion bounded by MAX_NESTING, aliases included). */
class ToJson {
  private decoded = 0;
  private viaAlias = 0;
  private aliasDepth = 0;
  /** Collections being converted: an alias to one of them would never end. */
  private readonly open = new Set<Node>();

  constructor(
    private readonly file: string,
    private readonly index: number,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  private fail(node: Node | null | undefined, code: ScenarioLoadErrorCode, detail: string): never {
    const at = node?.range?.[0];
    return fail(this.file, this.index, at === undefined ? 0 : this.lines.linePos(at).line, code, detail);
  }

  value(node: Node | null | undefined, depth: number): unknown {
    if (!node) return null;
    this.count(node);
    if (isAlias(node)) {
      const target = this.deref(node);
      this.aliasDepth++;
      try {
        return this.value(target, depth);
      } finally {
        this.aliasDepth--;
      }
    }
    if (isScalar(node)) return this.scalar(node);
    if (depth >= MAX_NESTING) this.fail(node, 'too-deep', TOO_DEEP);
    this.open.add(node);
    try {
      if (isMap(node)) return this.map(node, depth);
      if (isSeq(node)) return this.seq(node, depth);
      return this.fail(node, 'yaml', 'a node that is neither a scalar, a mapping nor a list');
    } finally {
      this.open.delete(node);
    }
  }

  private count(node: Node): void {
    this.decoded++;
    if (this.aliasDepth > 0) this.viaAlias++;
    if (this.viaAlias > 100 && this.decoded > 1000 && this.viaAlias / this.decoded > allowedAliasShare(this.decoded))
      this.fail(node, 'yaml', 'aliases expand to too much (an alias bomb?); kubectl refuses this document too');
  }

  private deref(alias: Node & { source: string; resolve(doc: Document): Node | undefined }): Node {
    const target = alias.resolve(this.doc);
    if (!target) this.fail(alias, 'yaml', `alias *${alias.source} has no anchor &${alias.source} before it`);
    if (this.open.has(target)) this.fail(alias, 'yaml', `alias *${alias.source} is inside the node it names`);
    return target;
  }

  private checkCollectionTag(node: YAMLMap | YAMLSeq, expected: 'map' | 'seq'): void {
    const tag = node.tag;
    if (tag !== undefined && tag !== '!' && tag !== `${TAG}${expected}`) this.fail(node, 'tag', refusedTag(tag));
  }

  private seq(node: YAMLSeq, depth: number): unknown[] {
    this.checkCollectionTag(node, 'seq');
    return node.items.map((item) =>
      // `[a: 1]`: a one-pair mapping inside a flow list.
      isPair(item) ? this.pairs([item], node, depth + 1) : this.value(item as Node, depth + 1),
    );
  }

  private map(node: YAMLMap, depth: number): Record<string, unknown> {
    this.checkCollectionTag(node, 'map');
    return this.pairs(node.items, node, depth);
  }

  private pairs(
    items: readonly { key: unknown; value: unknown }[],
    node: Node,
    depth: number,
  ): Record<string, unknown> {
    const out = new Map<string, unknown>();
    const written = new Set<string>();
    for (const { key, value } of items) {
      const k = key as Node | null;
      if (isScalar(k) && k.value === '<<' && ((k.type === 'PLAIN' && !k.tag) || k.tag === `${TAG}merge`)) {
        this.merge(out, value as Node | null, node, depth);
        continue;
      }
      const name = this.key(k, node);
      if (written.has(name))
        this.fail(k ?? node, 'yaml', `the key ${JSON.stringify(name)} appears twice in one mapping`);
      written.add(name);
      out.set(name, this.value(value as Node | null, depth + 1));
    }
    // fromEntries defines own properties: a "__proto__" key stays a key.
    return Object.fromEntries(out);
  }

  /** `<<: *a` or `<<: [*a, *b]` (the earlier wins): set each merged key here, over what is already set. */
  private merge(out: Map<string, unknown>, value: Node | null, at: Node, depth: number): void {
    const sources = isSeq(value) ? [...value.items].reverse() : [value];
    for (const source of sources) {
      const n = source as Node | null;
      const target = isAlias(n) ? this.deref(n) : n;
      if (!isMap(target))
        this.fail(n ?? at, 'yaml', 'a merge key << takes a mapping, an alias of one, or a list of those');
      const merged = this.value(n, depth) as Record<string, unknown>;
      for (const [k, v] of Object.entries(merged)) out.set(k, v);
    }
  }

  /** A key as the string sigs.k8s.io/yaml makes of it. */
  private key(node: Node | null, at: Node): string {
    const k = isAlias(node) ? this.deref(node) : node;
    if (!isScalar(k)) this.fail(k ?? at, 'yaml', k ? 'a mapping or a list as a key' : 'an empty key');
    const v = this.scalar(k);
    if (typeof v === 'string') return v;
    if (typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v) && meaningOf(k)?.kind === 'int'))
      return String(v);
    return this.fail(
      k,
      'yaml',
      v === null
        ? 'a null key (kubectl refuses it too)'
        : `the key ${String(k.value)} is a fractional number, which kubectl rewrites; quote it`,
    );
  }

  private scalar(node: Scalar): unknown {
    const tag = node.tag;
    if (tag !== undefined && !SCALAR_TAGS.has(tag)) this.fail(node, 'tag', refusedTag(tag));
    const text = String(node.value);
    const meaning = meaningOf(node);
    if (meaning === undefined) return text;
    if (tag !== undefined) {
      const wanted = tag.slice(TAG.length);
      const fits = meaning.kind === wanted || (wanted === 'float' && meaning.kind === 'int');
      if (!fits) this.fail(node, 'tag', `${JSON.stringify(text)} is not a valid ${shortTag(tag)}`);
    }
    switch (meaning.kind) {
      case 'null':
        return null;
      case 'bool':
        return meaning.value;
      case 'str':
        return text;
      case 'int': {
        const n = Number(meaning.value);
        if (!Number.isSafeInteger(n)) this.fail(node, 'value', inexactInteger(text));
        return n;
      }
      case 'float':
        if (!Number.isFinite(meaning.value))
          this.fail(node, 'value', `${text} has no JSON form (kubectl refuses it too)`);
        return meaning.value;
    }
  }
}

/** What a scalar means: undefined for a plain string (quoted, block, `!!str` or `!`). */
function meaningOf(node: Scalar): ScalarMeaning | undefined {
  const tag = node.tag;
  if (tag === '!' || tag === `${TAG}str`) return undefined;
  if (tag === undefined && node.type !== 'PLAIN') return undefined;
  return meaningOfPlain(String(node.value));
}
