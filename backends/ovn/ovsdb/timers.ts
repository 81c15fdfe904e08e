/**
 * Injectable timers. The RPC inactivity probe and the reconnect backoff take
 * a {@link Timers}; production passes {@link systemTimers}, tests pass a
 * {@link ManualTimers} and move time by hand instead of sleeping.
 */

export type TimerHandle = object;

export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Node's timers. */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * Virtual time: timers fire only when {@link advance} moves past them, in
 * order of due time (then creation).
 *
 * @example
 * const t = new ManualTimers();
 * t.setTimeout(() => console.log('fired'), 100);
 * t.advance(99); t.advance(1); // fired
 */
export class ManualTimers implements Timers {
  private nowMs = 0;
  private seq = 0;
  private readonly timers = new Map<object, ManualTimer>();

  get now(): number {
    return this.nowMs;
  }

  /** Number of timers not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {};
    this.timers.set(handle, { at: this.nowMs + Math.max(0, ms), seq: this.seq++, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, including ones set while advancing. */
  advance(ms: number): void {
    const until = this.nowMs + ms;
    for (;;) {
      let next: [object, ManualTimer] | undefined;
      for (const e of this.timers)
        if (
          e[1].at <= until &&
          (next === undefined || e[1].at < next[1].at || (e[1].at === next[1].at && e[1].seq < next[1].seq))
        )
          next = e;
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.nowMs = next[1].at;
      next[1].fn();
    }
    this.nowMs = until;
  }
}
