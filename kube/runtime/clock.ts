/**
 * Clocks for the controller runtime. Everything below `cli/` takes its clock
 * as an argument (docs/architecture.md), so the work queue, the informers and
 * the committer run on `realClock` in production and on a `SimClock` in
 * tests: simulated time moves only when the test says so, which makes backoff
 * delays and batching exact and the tests fast and reproducible.
 *
 * SimClock fires timers synchronously inside `advance`/`runUntilIdle`. Code
 * under test is asynchronous (promises), so between steps the test must let
 * microtasks and I/O callbacks run: `await clock.settle()`, or use
 * `await clock.tick(ms)`, which settles after every timer it fires.
 */
import { setImmediate as turn } from 'node:timers/promises';

/** The clock everything below `cli/` schedules with: wall time in production, simulated in tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Wall time and the host's timers.
 *
 * @example
 * const q = new WorkQueue({ clock: realClock });
 */
export const realClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number): unknown => setTimeout(fn, ms),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
});

interface SimTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** Self-rescheduling timers would make runUntilIdle spin for ever; it throws after this many. */
const MAX_FIRED = 1_000_000;

/**
 * Manual time. Timers due at the same time fire in the order they were set.
 *
 * @example
 * const clock = new SimClock();
 * clock.setTimeout(() => console.log('at', clock.now()), 10);
 * clock.advance(10); // logs "at 10"
 */
export class SimClock implements Clock {
  private t: number;
  private nextId = 1;
  private timers = new Map<number, SimTimer>();

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.timers.set(id, { id, at: this.t + delay, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Timers set and not yet fired or cleared. */
  pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due, or undefined when none is set. */
  nextAt(): number | undefined {
    return this.next()?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer due by then in time order,
   * including timers that fired timers set within the window. Returns how
   * many fired. A timer that throws stops the advance (time stays at it).
   *
   * @example
   * clock.advance(5); // fires everything due at now()+5 or earlier
   */
  advance(ms: number): number {
    const end = this.t + Math.max(0, ms);
    let fired = 0;
    for (let next = this.next(); next !== undefined && next.at <= end; next = this.next()) {
      this.fire(next);
      fired++;
    }
    this.t = end;
    return fired;
  }

  /**
   * Jumps to each next timer and fires it until none remain or the next one
   * is more than `limitMs` from now (time then stops at the limit, when
   * finite). Returns how many fired.
   *
   * @example
   * clock.runUntilIdle(60_000);
   */
  runUntilIdle(limitMs = Number.POSITIVE_INFINITY): number {
    const end = this.t + Math.max(0, limitMs);
    let fired = 0;
    for (let next = this.next(); next !== undefined && next.at <= end; next = this.next()) {
      if (++fired > MAX_FIRED)
        throw new Error(`SimClock.runUntilIdle: over ${MAX_FIRED} timers, one reschedules itself`);
      this.fire(next);
    }
    if (Number.isFinite(end)) this.t = Math.max(this.t, end);
    return fired;
  }

  /**
   * Lets promise callbacks and I/O run: awaits a few macrotask turns, fires
   * the timers due at the current time, and repeats until none are due.
   *
   * @example
   * queue.add('a'); await clock.settle(); // the handler has run
   */
  async settle(): Promise<void> {
    for (let round = 0; round < MAX_FIRED; round++) {
      for (let i = 0; i < 3; i++) await turn();
      if (this.advance(0) === 0) return;
    }
  }

  /**
   * `advance(ms)` one timer at a time, settling before the first and after
   * each, so timers set by asynchronous work that a timer started (a retry
   * scheduled when a handler's promise rejects) fire within the same window.
   *
   * @example
   * await clock.tick(100); // every retry due within 100 ms has run
   */
  async tick(ms: number): Promise<void> {
    const end = this.t + Math.max(0, ms);
    await this.settle();
    for (let next = this.next(); next !== undefined && next.at <= end; next = this.next()) {
      this.fire(next);
      await this.settle();
    }
    this.t = end;
    await this.settle();
  }

  private next(): SimTimer | undefined {
    let best: SimTimer | undefined;
    // Map iteration is insertion (id) order, so ties go to the earlier timer.
    for (const timer of this.timers.values()) if (best === undefined || timer.at < best.at) best = timer;
    return best;
  }

  private fire(timer: SimTimer): void {
    this.timers.delete(timer.id);
    this.t = Math.max(this.t, timer.at);
    timer.fn();
  }
}
