/**
 * Test support: a strict reader of the Prometheus text exposition format
 * (version 0.0.4), so a test checks the scrape as a Prometheus server would
 * take it: every sample belongs to a family declared by `# TYPE` (with the
 * `_bucket`, `_sum`, `_count` series of histograms and summaries), names
 * and label names are valid, label values are properly quoted and escaped,
 * values are numbers (`NaN`, `+Inf`, `-Inf` included, in any case as Go's
 * ParseFloat reads them), no series repeats,
 * and histogram buckets are cumulative and end with `le="+Inf"` equal to
 * `_count`. Anything else throws, naming the line.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** A value as Prometheus reads it (Go's ParseFloat: special values in any case, as prom-client writes `Nan`). */
function parseValue(s: string, at: string): number {
  const special = s.toLowerCase();
  if (special === 'nan') return Number.NaN;
  if (special === '+inf' || special === 'inf' || special === '+infinity' || special === 'infinity')
    return Number.POSITIVE_INFINITY;
  if (special === '-inf' || special === '-infinity') return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`${at}: value ${JSON.stringify(s)}`);
  return Number(s);
}

/** `{a="x",b="y\"z"}` from position `i` of `line` (at its `{`): the labels and the position after `}`. */
function parseLabels(line: string, i: number, at: string): [Record<string, string>, number] {
  const out: Record<string, string> = {};
  i++;
  while (line[i] !== '}') {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(i));
    if (m === null) throw new Error(`${at}: label at column ${i}`);
    i += m[0].length;
    let v = '';
    for (; line[i] !== '"'; i++) {
      if (i >= line.length) throw new Error(`${at}: unterminated label value`);
      if (line[i] === '\\') {
        const e = line[++i];
        if (e === 'n') v += '\n';
        else if (e === '\\' || e === '"') v += e;
        else throw new Error(`${at}: escape \\${e}`);
      } else v += line[i];
    }
    if (Object.hasOwn(out, m[1]!)) throw new Error(`${at}: label ${m[1]} twice`);
    out[m[1]!] = v;
    i++;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`${at}: expected , or } at column ${i}`);
  }
  return [out, i + 1];
}

/** The family a sample name belongs to (a histogram's `x_bucket` is family `x`). */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f !== undefined && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>();
  const counts = new Map<string, number>();
  const id = (labels: Readonly<Record<string, string>>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  for (const s of f.samples) {
    if (s.name === `${f.name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${f.name}: bucket without le`);
      const k = id(s.labels);
      series.set(k, [...(series.get(k) ?? []), s]);
    } else if (s.name === `${f.name}_count`) counts.set(id(s.labels), s.value);
  }
  for (const [k, buckets] of series) {
    let prev = -1;
    for (const b of buckets) {
      if (b.value < prev) throw new Error(`${f.name}${k}: buckets not cumulative`);
      prev = b.value;
    }
    const last = buckets[buckets.length - 1]!;
    if (last.labels.le !== '+Inf') throw new Error(`${f.name}${k}: last bucket is not +Inf`);
    if (counts.get(k) !== last.value)
      throw new Error(`${f.name}${k}: +Inf bucket ${last.value} != count ${counts.get(k)}`);
  }
}

/**
 * @example parsePrometheusText('# TYPE up gauge\nup 1\n').get('up')!.samples[0]!.value // 1
 */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const help = new Map<string, string>();
  const seen = new Set<string>();
  for (const [n, line] of text.split('\n').entries()) {
    const at = `line ${n + 1}`;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) continue;
      if (!NAME.test(m[2]!)) throw new Error(`${at}: metric name ${m[2]}`);
      if (m[1] === 'HELP') help.set(m[2]!, m[3]!);
      else {
        if (!TYPES.has(m[3]!)) throw new Error(`${at}: type ${m[3]}`);
        if (families.has(m[2]!)) throw new Error(`${at}: ${m[2]} declared twice`);
        families.set(m[2]!, { name: m[2]!, type: m[3] as Family['type'], help: help.get(m[2]!) ?? '', samples: [] });
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    if (m === null) throw new Error(`${at}: sample ${JSON.stringify(line)}`);
    const name = m[1]!;
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === '{') [labels, i] = parseLabels(line, i, at);
    for (const k of Object.keys(labels)) if (!LABEL.test(k)) throw new Error(`${at}: label name ${k}`);
    const rest = line.slice(i).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2) throw new Error(`${at}: value and timestamp`);
    const value = parseValue(rest[0]!, at);
    const f = familyOf(name, families);
    if (f === undefined) throw new Error(`${at}: ${name} has no # TYPE`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`${at}: series ${key} twice`);
    seen.add(key);
    f.samples.push({ name, labels, value });
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** The value of one series (labels matched as given, others ignored); undefined when absent. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  for (const f of families.values())
    for (const s of f.samples)
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  return undefined;
}
