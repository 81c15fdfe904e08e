/**
 * What `kovn sim run`, `sim connectivity` and `trace` print: the warnings
 * that travel with every answer, the results table (failing and unsure
 * probes first), the connectivity matrix, the summary line. Names from the
 * input are shown escaped: a control character or an ANSI escape sequence
 * in a pod's name shows as text, it never acts on the terminal.
 */
import { formatWarning, type Warning } from '../controller/kube/warnings.ts';
import type { ConnectivityResult } from '../scenarios/connectivity.ts';
import type { ProbeResult } from '../scenarios/run.ts';

const useColour = () => process.stdout.isTTY && !process.env.NO_COLOR;
export const paint = (code: number, s: string): string => (useColour() ? `\u001b[${code}m${s}\u001b[0m` : s);

// C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from the input as it may be shown on a terminal.
 *
 * @example shown('web\u001b[2J') // 'web\\u001b[2J'
 */
export function shown(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Each line of a multi-line text shown escaped (the line breaks stay). */
export const shownLines = (text: string): string => text.split('\n').map(shown).join('\n');

const MAX_WARNINGS_SHOWN = 30;

/** The warnings block (nothing when there are none): every answer carries them. */
export function warningLines(warnings: readonly Warning[]): string[] {
  if (warnings.length === 0) return [];
  const out = [
    paint(
      33,
      `${warnings.length} warning${warnings.length === 1 ? '' : 's'}: kovn did not act on these, or refused them; a probe that may depend on one is unsure`,
    ),
  ];
  for (const w of warnings.slice(0, MAX_WARNINGS_SHOWN)) out.push(`  ${shown(formatWarning(w))}`);
  if (warnings.length > MAX_WARNINGS_SHOWN)
    out.push(`  ... and ${warnings.length - MAX_WARNINGS_SHOWN} more (--json lists every one)`);
  return out;
}

const statusOf = (r: { ok: boolean; unsure?: string }) => (r.unsure !== undefined ? 'UNSURE' : r.ok ? 'ok' : 'FAIL');
const rank = (r: ProbeResult) => (r.unsure !== undefined ? 1 : r.ok ? 2 : 0);

/** The results as an aligned table, failing then unsure probes first, each with its reason. */
export function resultsTable(results: readonly ProbeResult[]): string[] {
  const sorted = [...results].sort((a, b) => rank(a) - rank(b));
  const cells = sorted.map((r) => [
    statusOf(r),
    String(r.step),
    shown(r.from),
    shown(r.to),
    `${r.protocol}${r.port !== undefined ? `/${r.port}` : ''}`,
    r.expected ? 'allowed' : 'denied',
    r.allowed ? 'allowed' : 'denied',
  ]);
  const head = ['', 'step', 'from', 'to', 'probe', 'expected', 'got'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join('  ');
  const out = [`${line(head)}  why`];
  sorted.forEach((r, k) => {
    // Colour after padding, so the columns stay aligned.
    const text = line(cells[k]!).replace(/^(ok|FAIL|UNSURE)/, (m) =>
      paint(m === 'ok' ? 32 : m === 'FAIL' ? 31 : 33, m),
    );
    const why = r.unsure ?? (r.reason && !r.allowed ? r.reason : undefined);
    out.push(`${text}${why ? `  ${shown(why)}` : ''}`);
  });
  return out;
}

/** `12/13 probes as expected on sim, 1 not, 1 unsure, 2 warnings`. */
export function summaryLine(results: readonly ProbeResult[], warnings: readonly Warning[], backend: string): string {
  const unsure = results.filter((r) => r.unsure !== undefined).length;
  const bad = results.filter((r) => !r.ok && r.unsure === undefined).length;
  const good = results.length - bad - unsure;
  return (
    `${good}/${results.length} probes as expected on ${backend}` +
    (bad ? paint(31, `, ${bad} not`) : '') +
    (unsure ? paint(33, `, ${unsure} unsure`) : '') +
    (warnings.length ? paint(33, `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`) : '')
  );
}

/** Pods at most this many: a matrix per port; more, a list. */
const MATRIX_MAX_PODS = 12;

export function connectivityLines(r: ConnectivityResult): string[] {
  const out: string[] = [];
  const w = (line: string) => out.push(line);
  const ports = [...new Set(r.pairs.map((p) => `${p.protocol}/${p.port}`))].sort();
  if (r.pods.length <= MATRIX_MAX_PODS) {
    const idx = new Map(r.pods.map((p, i) => [p, i + 1]));
    const width = Math.max(...r.pods.map((p) => shown(p).length), 4);
    for (const port of ports) {
      const cell = new Map<string, { allowed: boolean; unsure: boolean }>();
      for (const p of r.pairs)
        if (`${p.protocol}/${p.port}` === port)
          cell.set(JSON.stringify([p.from, p.to]), { allowed: p.allowed, unsure: p.unsure !== undefined });
      w(`${port.padEnd(width + 4)} to: ${r.pods.map((_, i) => String(i + 1).padStart(3)).join('')}`);
      for (const from of r.pods) {
        const row = r.pods.map((to) => {
          const v = cell.get(JSON.stringify([from, to]));
          if (v === undefined) return '  .';
          const mark = v.allowed ? 'Y' : 'n';
          return v.unsure ? paint(33, ` ${mark}?`) : paint(v.allowed ? 32 : 31, `  ${mark}`);
        });
        w(`${String(idx.get(from)).padStart(2)}  ${shown(from).padEnd(width)} ${row.join('')}`);
      }
      w('');
    }
    w('Y allowed, n denied, ? unsure (may depend on what kovn did not act on), . not probed');
  }
  const denied = r.pairs.filter((p) => !p.allowed);
  const unsure = r.pairs.filter((p) => p.unsure !== undefined);
  const listed =
    r.pods.length <= MATRIX_MAX_PODS
      ? [...denied.filter((p) => p.unsure === undefined), ...unsure]
      : [...denied, ...r.pairs.filter((p) => p.allowed)];
  for (const p of listed) {
    const verdict = p.allowed ? paint(32, 'allowed') : paint(31, 'denied ');
    const why = p.unsure ? ` - unsure: ${p.unsure}` : p.reason ? ` - ${p.reason}` : '';
    w(`${verdict} ${shown(p.from)} -> ${shown(p.to)} ${p.protocol}/${p.port}${shown(why)}`);
  }
  w(
    `${r.pairs.length - denied.length}/${r.pairs.length} pairs allowed, ${denied.length} denied (${r.pods.length} pods)` +
      (unsure.length ? paint(33, `, ${unsure.length} unsure`) : '') +
      (r.warnings.length ? paint(33, `, ${r.warnings.length} warning${r.warnings.length === 1 ? '' : 's'}`) : ''),
  );
  return out;
}
