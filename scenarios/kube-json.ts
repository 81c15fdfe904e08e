/**
 * JSON files (`kubectl get -o json` writes one List; a stream of objects is
 * read as one document each, as kubectl reads it). One pass without recursion
 * checks the syntax and what JSON.parse would hide, naming the line: a key
 * repeated in one object (JSON.parse keeps the last silently), an integer
 * beyond 2^53 (JSON.parse rounds it), nesting deeper than MAX_NESTING. Then
 * JSON.parse, which is fast and lean, builds each document's value.
 */
import { LineCounter } from 'yaml';
import { type ScenarioLoadErrorCode, ScenarioLoadError } from './load-error.ts';
import { inexactInteger, MAX_NESTING, type ReadDocument, TOO_DEEP } from './kube-yaml.ts';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

/** Where the scanner is in the grammar. */
type Expect = 'value' | 'key-or-close' | 'key' | 'colon' | 'comma-or-close' | 'value-or-close';

/**
 * The documents of one JSON file.
 *
 * @example [...readJsonDocuments('a.json', '{"kind": "List", "items": []}')][0].value // { kind: 'List', items: [] }
 * @throws ScenarioLoadError 'json', 'too-deep' or 'value', naming file, document and line.
 */
export function* readJsonDocuments(file: string, text: string): Generator<ReadDocument> {
  const scan = new JsonScanner(file, text);
  for (let index = 0; ; index++) {
    const doc = scan.nextDocument(index);
    if (doc === undefined) return;
    // The scan checked the syntax: JSON.parse cannot fail here.
    const value: unknown = JSON.parse(text.slice(doc.start, doc.end));
    yield { index, value, contents: null, lines: new LineCounter(), line: doc.line };
  }
}

class JsonScanner {
  private at: number;
  private line = 1;

  constructor(
    private readonly file: string,
    private readonly text: string,
  ) {
    this.at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  private fail(index: number, code: ScenarioLoadErrorCode, detail: string): never {
    throw new ScenarioLoadError(code, { file: this.file, doc: index, line: this.line }, '', detail);
  }

  private skipSpace(): void {
    const t = this.text;
    while (this.at < t.length && WS.has(t.charCodeAt(this.at))) {
      if (t.charCodeAt(this.at) === 0x0a) this.line++;
      this.at++;
    }
  }

  /** The next top-level value's extent, checked; undefined at the end of the text. */
  nextDocument(index: number): { start: number; end: number; line: number } | undefined {
    this.skipSpace();
    if (this.at >= this.text.length) return undefined;
    const start = this.at;
    const line = this.line;
    /** Per open collection: the keys seen so far (objects) or null (arrays). */
    const open: (Set<string> | null)[] = [];
    let expect: Expect = 'value';
    const what = () => (this.at < this.text.length ? JSON.stringify(this.text[this.at]) : 'the end of the file');
    for (;;) {
      this.skipSpace();
      const c = this.text[this.at];
      const top = open[open.length - 1];
      const closes = (c === '}' && expect === 'key-or-close') || (c === ']' && expect === 'value-or-close');
      if (closes || (expect === 'comma-or-close' && ((c === '}' && top) || (c === ']' && top === null)))) {
        this.at++;
        open.pop();
        expect = 'comma-or-close';
      } else if (expect === 'comma-or-close') {
        if (c !== ',') this.fail(index, 'json', `expected ',' or '${top ? '}' : ']'}', found ${what()}`);
        this.at++;
        expect = top ? 'key' : 'value';
      } else if (expect === 'colon') {
        if (c !== ':') this.fail(index, 'json', `expected ':' after a key, found ${what()}`);
        this.at++;
        expect = 'value';
      } else if (expect === 'key-or-close' || expect === 'key') {
        if (c !== '"') this.fail(index, 'json', `expected a key in double quotes, found ${what()}`);
        const key = this.string(index);
        if (top?.has(key)) this.fail(index, 'json', `the key ${JSON.stringify(key)} appears twice in one object`);
        top?.add(key);
        expect = 'colon';
      } else if (c === '{' || c === '[') {
        if (open.length >= MAX_NESTING) this.fail(index, 'too-deep', TOO_DEEP);
        open.push(c === '{' ? new Set() : null);
        this.at++;
        expect = c === '{' ? 'key-or-close' : 'value-or-close';
      } else {
        this.scalar(index, what);
        expect = 'comma-or-close';
      }
      if (expect === 'comma-or-close' && open.length === 0) break;
    }
    return { start, end: this.at, line };
  }

  /** A string at `at` (a `"`), decoded; leaves `at` after it. */
  private string(index: number): string {
    const t = this.text;
    const start = this.at;
    let escaped = false;
    for (let i = start + 1; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        this.at = i + 1;
        const raw = t.slice(start, i + 1);
        return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      }
      if (c === 0x5c) {
        escaped = true;
        const e = t[i + 1] ?? '';
        if (e === 'u' ? !/^[0-9a-fA-F]{4}$/.test(t.slice(i + 2, i + 6)) : !'"\\/bfnrt'.includes(e) || e === '')
          return this.fail(index, 'json', `an invalid escape \\${e} in a string`);
        i += e === 'u' ? 5 : 1;
      } else if (c < 0x20) return this.fail(index, 'json', 'a control character or line break inside a string');
    }
    return this.fail(index, 'json', 'a string that is never closed');
  }

  private scalar(index: number, what: () => string): void {
    const t = this.text;
    const c = t[this.at];
    if (c === '"') {
      this.string(index);
      return;
    }
    for (const re of [NUMBER, LITERAL]) {
      re.lastIndex = this.at;
      const m = re.exec(t);
      if (!m) continue;
      if (re === NUMBER && !m[2] && !m[3] && m[0].replace('-', '').length > 15) {
        if (!Number.isSafeInteger(Number(m[0]))) this.fail(index, 'value', inexactInteger(m[0]));
      }
      this.at += m[0].length;
      return;
    }
    this.fail(index, 'json', `expected a value, found ${what()}`);
  }
}
