/**
 * `kovn sim connectivity`'s output, written as the pairs are answered: the
 * JSON document `{"pairs":[...],"warnings":[...]}` (docs/architecture.md,
 * "The `kovn` command") pair by pair, the same bytes `JSON.stringify` of the
 * whole would give; the text for many pods a line per pair. Only counts are
 * kept, so memory does not grow with the number of pairs; a few pods (the
 * matrix) are held and printed at the end. Output goes out in chunks, and a
 * chunk the stream cannot take yet is waited for (a slow pipe holds the run
 * back instead of filling memory).
 */
import { type Warning, warningJSON } from '../kube/objects/warnings.ts';
import type { ConnectivityPair, ConnectivitySummary } from '../scenarios/connectivity.ts';
import { paint, shown, warningLines } from './sim-output.ts';

/** What the output is written to (process.stdout). */
export interface Writable {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

const CHUNK = 1 << 16;

/** Strings gathered into chunks; a chunk the stream refuses is waited for ('drain'). */
export class ChunkedWriter {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly out: Writable) {}

  async write(text: string): Promise<void> {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (!this.out.write(text)) await new Promise<void>((resolve) => this.out.once('drain', resolve));
  }
}

/** One pair as the JSON contract has it (key order fixed: the streamed document equals the whole one). */
export const pairJSON = (p: ConnectivityPair) => ({
  from: p.from,
  to: p.to,
  protocol: p.protocol,
  port: p.port,
  allowed: p.allowed,
  ...(p.reason ? { reason: p.reason } : {}),
  ...(p.unsure ? { unsure: p.unsure } : {}),
});

/** What a connectivity output does with each pair and at the end. */
export interface ConnectivityOutput {
  pair(p: ConnectivityPair): Promise<void>;
  end(summary: ConnectivitySummary): Promise<void>;
}

/**
 * `{"pairs":[...],"warnings":[...]}\n`, pair by pair.
 *
 * @example const json = new ConnectivityJson(new ChunkedWriter(process.stdout)); await json.pair(p); await json.end(sum);
 */
export class ConnectivityJson implements ConnectivityOutput {
  private count = 0;
  constructor(private readonly w: ChunkedWriter) {}

  async pair(p: ConnectivityPair): Promise<void> {
    await this.w.write(`${this.count++ === 0 ? '{"pairs":[' : ','}${JSON.stringify(pairJSON(p))}`);
  }

  async end(summary: ConnectivitySummary): Promise<void> {
    const warnings = JSON.stringify(summary.warnings.map(warningJSON));
    await this.w.write(`${this.count === 0 ? '{"pairs":[' : ''}],"warnings":${warnings}}\n`);
    await this.w.flush();
  }
}

/** Pods at most this many: a matrix per port; more, a line per pair. */
const MATRIX_MAX_PODS = 12;

const pairLine = (p: ConnectivityPair) => {
  const verdict = p.allowed ? paint(32, 'allowed') : paint(31, 'denied ');
  const why = p.unsure ? ` - unsure: ${p.unsure}` : p.reason ? ` - ${p.reason}` : '';
  return `${verdict} ${shown(p.from)} -> ${shown(p.to)} ${p.protocol}/${p.port}${shown(why)}`;
};

/**
 * The text: for a few pods, the warnings, a matrix per port and the pairs
 * denied or unsure, at the end; for more, a line per pair as it is answered,
 * then the warnings. Both end with the summary line.
 *
 * @example const text = new ConnectivityText(plan.pods, new ChunkedWriter(process.stdout));
 */
export class ConnectivityText implements ConnectivityOutput {
  /** The matrix's pairs (a few pods only); undefined: each pair is written as it comes. */
  private readonly held: ConnectivityPair[] | undefined;
  constructor(
    pods: readonly string[],
    private readonly w: ChunkedWriter,
  ) {
    this.held = pods.length <= MATRIX_MAX_PODS ? [] : undefined;
  }

  async pair(p: ConnectivityPair): Promise<void> {
    if (this.held !== undefined) this.held.push(p);
    else await this.w.write(`${pairLine(p)}\n`);
  }

  async end(s: ConnectivitySummary): Promise<void> {
    const lines =
      this.held === undefined ? warningLines(s.warnings) : [...warningLines(s.warnings), ...matrix(s.pods, this.held)];
    lines.push(summaryText(s));
    for (const line of lines) await this.w.write(`${line}\n`);
    await this.w.flush();
  }
}

/** A matrix per port (rows from, columns to), then the pairs denied and those unsure. */
function matrix(pods: readonly string[], pairs: readonly ConnectivityPair[]): string[] {
  const out: string[] = [];
  const ports = [...new Set(pairs.map((p) => `${p.protocol}/${p.port}`))].sort();
  const idx = new Map(pods.map((p, i) => [p, i + 1]));
  const width = Math.max(...pods.map((p) => shown(p).length), 4);
  for (const port of ports) {
    const cell = new Map<string, { allowed: boolean; unsure: boolean }>();
    for (const p of pairs)
      if (`${p.protocol}/${p.port}` === port)
        cell.set(JSON.stringify([p.from, p.to]), { allowed: p.allowed, unsure: p.unsure !== undefined });
    out.push(`${port.padEnd(width + 4)} to: ${pods.map((_, i) => String(i + 1).padStart(3)).join('')}`);
    for (const from of pods) {
      const row = pods.map((to) => {
        const v = cell.get(JSON.stringify([from, to]));
        if (v === undefined) return '  .';
        const mark = v.allowed ? 'Y' : 'n';
        return v.unsure ? paint(33, ` ${mark}?`) : paint(v.allowed ? 32 : 31, `  ${mark}`);
      });
      out.push(`${String(idx.get(from)).padStart(2)}  ${shown(from).padEnd(width)} ${row.join('')}`);
    }
    out.push('');
  }
  out.push('Y allowed, n denied, ? unsure (may depend on what kovn did not act on), . not probed');
  const denied = pairs.filter((p) => !p.allowed && p.unsure === undefined);
  const unsure = pairs.filter((p) => p.unsure !== undefined);
  for (const p of [...denied, ...unsure]) out.push(pairLine(p));
  return out;
}

/** `3/4 pairs allowed, 1 denied (3 pods), 1 unsure, 2 warnings`. */
function summaryText(s: ConnectivitySummary): string {
  const warnings: readonly Warning[] = s.warnings;
  return (
    `${s.allowed}/${s.total} pairs allowed, ${s.denied} denied (${s.pods.length} pods)` +
    (s.unsure ? paint(33, `, ${s.unsure} unsure`) : '') +
    (warnings.length ? paint(33, `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`) : '')
  );
}
