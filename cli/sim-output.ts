/**
 * What `kovn sim run`, `sim connectivity` and `trace` print: the warnings
 * that travel with every answer, the results table (failing and unsure
 * probes first), the summary line, `sim run --json`'s results, a trace as
 * text; `sim connectivity`'s pairs are written
 * by cli/connectivity-output.ts. Names from the input are shown escaped: a
 * control character or an ANSI escape sequence in a pod's name shows as
 * text, it never acts on the terminal.
 */
import { formatWarning, type Warning } from '../kube/objects/warnings.ts';
import { resultRank, resultStatus } from '../scenarios/results.ts';
import type { ProbeResult } from '../scenarios/run.ts';
import type { TraceReport } from '../scenarios/trace.ts';

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

/** The results as an aligned table, failing then unsure probes first, each with its reason. */
export function resultsTable(results: readonly ProbeResult[]): string[] {
  const sorted = [...results].sort((a, b) => resultRank(a) - resultRank(b));
  const cells = sorted.map((r) => [
    resultStatus(r),
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
    const why = [r.unsure ?? (r.allowed ? undefined : r.reason), r.note].filter(Boolean).join('; ');
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

/**
 * A trace as text: the probe and where it ran (`where`), each stage, the
 * retransmission and the reply, ovn-trace's own text. `formatTrace` is
 * sim/trace.ts's, passed in so that this module loads without the simulator.
 */
export function traceLines(
  t: TraceReport & { readonly warnings: readonly Warning[] },
  label: string,
  where: string,
  formatTrace: (stages: TraceReport['stages']) => string,
): string[] {
  const out = warningLines(t.warnings);
  const w = (line: string) => out.push(line);
  const verdict = (v: string) => (v === 'delivered' ? paint(32, v) : paint(31, v));
  const at = (outport: string | undefined) => (outport ? ` at ${shown(outport)}` : '');
  const why = (reason: string | undefined) => reason && w(`${paint(31, 'why')}: ${shown(reason)}`);
  w(`${shown(label)} (${where}): ${verdict(t.verdict)}${at(t.outport)}`);
  if (t.stages.length > 0) w(shownLines(formatTrace(t.stages)));
  why(t.reason);
  const last = t.retransmission;
  if (last) {
    w('');
    w(`retransmission: ${verdict(last.verdict)}${at(last.outport)}`);
    w(shownLines(formatTrace(last.stages)));
    why(last.reason);
  }
  if (t.note) w(`note: ${shown(t.note)}`);
  if (t.unsure) w(`${paint(33, 'unsure')}: ${shown(t.unsure)}`);
  if (t.reply) {
    w('');
    w(`reply: ${verdict(t.reply.verdict)}${at(t.reply.outport)}`);
    w(shownLines(formatTrace(t.reply.stages)));
    why(t.reply.reason);
  }
  for (const [title, text] of [
    ['ovn-trace (first packet):', t.ovnTrace],
    ['ovn-trace (retransmission):', t.ovnRetransmission],
  ] as const) {
    if (text === undefined) continue;
    w('');
    w(title);
    w(text.trimEnd());
  }
  return out;
}

/** One probe result of `kovn sim run --json` (../shared/DESIGN.md). */
export function resultJSON(r: ProbeResult) {
  return {
    step: r.step,
    from: r.from,
    to: r.to,
    protocol: r.protocol,
    ...(r.port !== undefined ? { port: r.port } : {}),
    expected: r.expected,
    allowed: r.allowed,
    ok: r.ok,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.unsure ? { unsure: r.unsure } : {}),
    ...(r.note ? { note: r.note } : {}),
  };
}
