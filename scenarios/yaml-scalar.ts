/**
 * What a YAML scalar means to kubectl. kubectl reads manifests with
 * sigs.k8s.io/yaml, which decodes with go-yaml v2 (YAML 1.1 scalars) and then
 * converts the result to JSON. So, unlike YAML 1.2's core schema (the `yaml`
 * package's default):
 * - `yes`, `no`, `on`, `off`, `y`, `n` (in three spellings each) are booleans;
 * - integers are read as Go's `strconv.ParseInt(s, 0, 64)` reads them after
 *   removing every `_`: `0x1F`, `0o17`, `017` (octal), `0b101`, `1_000`;
 * - unquoted timestamps (`2024-05-01`) stay strings (go-yaml keeps a
 *   timestamp-looking scalar as its text when decoding into an untyped value);
 * - base-60 numbers (`1:20`) are strings.
 * Quoted and block scalars are strings unless tagged.
 */

export type ScalarMeaning =
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  /** An integer, exact; the caller decides whether JavaScript can hold it. */
  | { readonly kind: 'int'; readonly value: bigint }
  /** May be NaN or ±Infinity (`.nan`, `.inf`), which JSON cannot carry. */
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'str' };

const NULL: ScalarMeaning = { kind: 'null' };
const STR: ScalarMeaning = { kind: 'str' };
const bool = (value: boolean): ScalarMeaning => ({ kind: 'bool', value });
const float = (value: number): ScalarMeaning => ({ kind: 'float', value });

/** The words go-yaml v2 resolves by table (its `resolveMapList`). */
const WORDS = new Map<string, ScalarMeaning>();
for (const [meaning, words] of [
  [bool(true), 'y Y yes Yes YES true True TRUE on On ON'],
  [bool(false), 'n N no No NO false False FALSE off Off OFF'],
  [NULL, '~ null Null NULL'],
  [float(Number.NaN), '.nan .NaN .NAN'],
  [float(Number.POSITIVE_INFINITY), '.inf .Inf .INF +.inf +.Inf +.INF'],
  [float(Number.NEGATIVE_INFINITY), '-.inf -.Inf -.INF'],
] as const)
  for (const w of words.split(' ')) WORDS.set(w, meaning);
WORDS.set('', NULL);

/** go-yaml's test for a decimal float (after removing `_`). */
const DECIMAL_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What Go's ParseFloat accepts for text that starts with a dot. */
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const DIGITS: Readonly<Record<number, RegExp>> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Go's `strconv.ParseInt(s, 0, 64)`, falling back to `ParseUint` as go-yaml
 * does: the value and whether it fits those 64 bits, or undefined when `s` is
 * not an integer.
 */
function goInteger(s: string): { readonly value: bigint; readonly fits: boolean } | undefined {
  const negative = s[0] === '-';
  const rest = s[0] === '+' || s[0] === '-' ? s.slice(1) : s;
  if (rest === '') return undefined;
  let prefix = '';
  let digits = rest;
  let base = 10;
  if (rest[0] === '0') {
    const p = rest[1]?.toLowerCase();
    if (rest.length >= 3 && (p === 'b' || p === 'o' || p === 'x')) {
      [prefix, base, digits] = [`0${p}`, p === 'b' ? 2 : p === 'o' ? 8 : 16, rest.slice(2)];
    } else {
      // A leading 0 means octal; "0" alone is zero.
      [prefix, base, digits] = ['0o', 8, rest.slice(1) || '0'];
    }
  }
  if (!DIGITS[base]?.test(digits)) return undefined;
  const magnitude = BigInt(`${prefix}${digits}`);
  const value = negative ? -magnitude : magnitude;
  return { value, fits: value >= INT64_MIN && value <= UINT64_MAX };
}

/**
 * The meaning of a plain (unquoted, untagged) scalar's text, as go-yaml v2
 * resolves it (its `resolve` function, read for its behaviour).
 *
 * @example meaningOfPlain('on') // { kind: 'bool', value: true }
 * @example meaningOfPlain('0x1F') // { kind: 'int', value: 31n }
 * @example meaningOfPlain('2024-05-01') // { kind: 'str' }
 */
export function meaningOfPlain(text: string): ScalarMeaning {
  const word = WORDS.get(text);
  if (word) return word;
  const first = text[0] ?? '';
  if (first === '.') {
    const n = DOT_FLOAT.test(text) ? Number(text) : Number.NaN;
    return Number.isFinite(n) ? float(n) : STR;
  }
  if (!/[-+0-9]/.test(first)) return STR;
  const plain = text.replaceAll('_', '');
  const int = goInteger(plain);
  if (int?.fits) return { kind: 'int', value: int.value };
  if (DECIMAL_FLOAT.test(plain)) {
    // Go's ParseFloat fails on overflow (1e400): the text stays a string.
    const n = Number(plain);
    if (Number.isFinite(n)) return float(n);
  }
  // Too many digits for 64 bits, unsigned and not a float: go-yaml keeps a big integer.
  if (int && !/^[-+]/.test(plain)) return { kind: 'int', value: int.value };
  return STR;
}
