/**
 * A work queue keyed by object, with client-go's guarantees (the ones
 * Kube-OVN's controllers rely on): a key waiting is queued once however
 * often it is added; a key is never handled by two workers at once, and a
 * key added while it is being handled is handled again afterwards; a
 * failed key is retried after a per-key exponential backoff (reset when it
 * succeeds); at most `workers` keys are handled at a time.
 */
import type { Clock } from './clock.ts';

export interface WorkQueueOptions {
  readonly clock: Clock;
  /** First retry delay and cap (default 5 ms .. 60 s, doubling per failure of the key). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly onError?: (key: string, err: unknown, attempt: number) => void;
}

export interface WorkQueueStats {
  readonly adds: number;
  readonly processed: number;
  readonly retries: number;
}

/**
 * @example
 * const q = new WorkQueue({ clock: realClock });
 * void q.run(async (key) => reconcile(key), 4);
 * q.add('default/web-0'); await q.idle();
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly waiting = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added again while being processed. */
  private readonly again = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, unknown>();
  private handler: ((key: string) => Promise<void>) | undefined;
  private workers = 1;
  private shuttingDown = false;
  private idleWaiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private s = { adds: 0, processed: 0, retries: 0 };

  constructor(private readonly opts: WorkQueueOptions) {}

  add(key: string): void {
    if (this.shuttingDown) return;
    this.s.adds++;
    if (this.processing.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after `ms` (a later add before then still adds at once). */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown || this.timers.has(key)) return;
    const h = this.opts.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, h);
  }

  /** Forgets the key's failures (its next retry starts from the first delay). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Keys queued, not counting those being handled or waiting out a delay. */
  len(): number {
    return this.queue.length - this.head;
  }

  /** Keys waiting out a retry delay. */
  delayed(): number {
    return this.timers.size;
  }

  get stats(): WorkQueueStats {
    return { ...this.s };
  }

  /** Starts handling keys with at most `workers` at a time; resolves on shutdown. */
  run(handler: (key: string) => Promise<void>, workers: number): Promise<void> {
    this.handler = handler;
    this.workers = Math.max(1, workers);
    this.pump();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Resolves when nothing is queued and nothing is being handled (delayed retries do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes no more keys; resolves once the keys being handled are done. Pending retries are dropped. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const h of this.timers.values()) this.opts.clock.clearTimeout(h);
    this.timers.clear();
    this.queue.length = 0;
    this.head = 0;
    this.waiting.clear();
    this.again.clear();
    if (this.processing.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.notify();
    for (const w of this.drainWaiters.splice(0)) w();
  }

  private isIdle(): boolean {
    return this.len() === 0 && this.processing.size === 0;
  }

  private pump(): void {
    if (this.handler === undefined) return;
    while (!this.shuttingDown && this.processing.size < this.workers && this.len() > 0) {
      const key = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.waiting.delete(key);
      this.processing.add(key);
      void this.handle(key);
    }
    this.notify();
  }

  private async handle(key: string): Promise<void> {
    let failed: unknown;
    let threw = false;
    try {
      await this.handler!(key);
    } catch (err) {
      threw = true;
      failed = err;
    }
    this.s.processed++;
    this.processing.delete(key);
    if (threw) {
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.opts.onError?.(key, failed, attempt);
      if (!this.again.delete(key)) {
        this.s.retries++;
        this.addAfter(key, this.delay(attempt));
      } else this.add(key);
    } else {
      this.failures.delete(key);
      if (this.again.delete(key)) this.add(key);
    }
    this.pump();
  }

  private delay(attempt: number): number {
    const b = this.opts.backoff ?? { initialMs: 5, maxMs: 60_000 };
    return Math.min(b.maxMs, b.initialMs * 2 ** Math.min(30, attempt - 1));
  }

  private notify(): void {
    if (!this.isIdle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
