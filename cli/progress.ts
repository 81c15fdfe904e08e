/**
 * Progress lines on stderr for the commands that may run long (`sim run`,
 * `sim connectivity`, `trace`). On a terminal, what the run is doing as it
 * changes (at most a line every half second); otherwise (a CI log, a pipe)
 * nothing for a short run, and once it has gone on for LONG_MS a line every
 * LONG_MS, so a log shows a long run is alive and how far it got. Counted
 * work (probes) shows its rate and the time left. The clock is injected:
 * tests drive it; the CLI passes the real one and a timer that calls `tick`
 * (a phase that reports nothing for a while is still shown).
 */

/** A run longer than this is long: past it, a line at least this often. */
export const LONG_MS = 5_000;
/** On a terminal, lines at most this often. */
const TTY_GAP_MS = 500;

export interface ProgressOptions {
  /** Milliseconds, monotonic. */
  readonly now: () => number;
  readonly write: (line: string) => void;
  /** stderr is a terminal. */
  readonly tty: boolean;
}

export interface Count {
  readonly done: number;
  readonly total: number;
}

/**
 * @example
 * const p = new Progress({ now: () => performance.now(), write: (l) => process.stderr.write(l), tty: false });
 * p.report('step 0: probes 1000/4000', { done: 1000, total: 4000 });
 */
export class Progress {
  private readonly start: number;
  private latest: { what: string; count?: Count } | undefined;
  /** The latest report has not been shown. */
  private pending = false;
  private last = Number.NEGATIVE_INFINITY;
  /** Where counting started (the rate is over the counted part only). */
  private counted: { at: number; done: number } | undefined;

  constructor(private readonly opts: ProgressOptions) {
    this.start = opts.now();
  }

  /** What the run is doing now; `count`: how far through counted work. */
  report(what: string, count?: Count): void {
    const t = this.opts.now();
    if (count === undefined) this.counted = undefined;
    else if (this.counted === undefined || count.done < this.counted.done) this.counted = { at: t, done: count.done };
    this.latest = { what, ...(count ? { count } : {}) };
    this.pending = true;
    this.show(t);
  }

  /** From a timer: shows a report held back, or, in a long run, the latest again. */
  tick(): void {
    this.show(this.opts.now());
  }

  private show(t: number): void {
    if (this.latest === undefined) return;
    const long = t - this.start >= LONG_MS;
    if (!this.opts.tty && !long) return;
    const gap = t - this.last;
    const due = this.pending ? gap >= (this.opts.tty ? TTY_GAP_MS : LONG_MS) : long && gap >= LONG_MS;
    if (!due) return;
    this.last = t;
    this.pending = false;
    this.opts.write(`kovn: ${this.latest.what}${this.countText(t)}${long ? `, ${duration(t - this.start)} in` : ''}\n`);
  }

  private countText(t: number): string {
    const c = this.latest?.count;
    if (c === undefined || c.total === 0) return '';
    const pct = ((100 * c.done) / c.total).toFixed(c.done < c.total / 10 ? 1 : 0);
    const from = this.counted;
    const secs = from === undefined ? 0 : (t - from.at) / 1000;
    if (from === undefined || secs < 1 || c.done <= from.done) return ` (${pct}%)`;
    const rate = (c.done - from.done) / secs;
    const left = duration(((c.total - c.done) / rate) * 1000);
    return ` (${pct}%, ${Math.round(rate).toLocaleString('en-US')}/s, about ${left} left)`;
  }
}

/**
 * @example duration(75_000) // '1 min 15 s'
 */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
