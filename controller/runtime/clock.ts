/**
 * Clocks, injected everywhere below `cli/` (docs/architecture.md): the real
 * one, and a simulated one tests and benchmarks drive by hand, on which
 * retries, backoff and batching run without waiting for real time.
 */
import type { CommitClock } from '../desired/commit.ts';

export type Clock = CommitClock;

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Time moves only when told. Timers fire in time order (ties in the order
 * they were set), each at its own time, including timers set by fired timers
 * within the window; the promise work a timer starts runs between timers.
 *
 * @example
 * const clock = new SimClock();
 * clock.setTimeout(() => console.log('5 ms'), 5);
 * await clock.advance(10); // prints, now() === 10
 */
export class SimClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, { readonly at: number; readonly fn: () => void }>();

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due (undefined: none). */
  nextAt(): number | undefined {
    let best: number | undefined;
    for (const x of this.timers.values()) if (best === undefined || x.at < best) best = x.at;
    return best;
  }

  /** Moves time forward by `ms`, firing due timers one by one and letting their promise work settle. */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    for (;;) {
      await settle();
      const due = this.takeDue(until);
      if (due === undefined) break;
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = until;
    await settle();
  }

  /** Jumps from timer to timer until none remain (or `limitMs` of simulated time has passed). */
  async runUntilIdle(limitMs = 3_600_000): Promise<void> {
    const end = this.t + limitMs;
    for (;;) {
      await settle();
      const at = this.nextAt();
      if (at === undefined || at > end) return;
      await this.advance(at - this.t);
    }
  }

  private takeDue(until: number): { at: number; fn: () => void } | undefined {
    let best: [number, { at: number; fn: () => void }] | undefined;
    for (const e of this.timers) if (e[1].at <= until && (best === undefined || e[1].at < best[1].at)) best = e;
    if (best === undefined) return undefined;
    this.timers.delete(best[0]);
    return best[1];
  }
}

/** Lets pending promise callbacks and I/O-free async work run (a few macrotask turns). */
export async function settle(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}
