import { describe, expect, it } from 'vitest';
import { SimClock } from './clock.ts';
import { WorkQueue } from './queue.ts';

/** A promise the test resolves by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('WorkQueue', () => {
  it('deduplicates keys that are waiting', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    for (const k of ['a', 'b', 'a', 'a', 'c', 'b']) q.add(k);
    expect(q.len()).toBe(3);
    const seen: string[] = [];
    q.run(async (k) => void seen.push(k), 1);
    await q.idle();
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(q.stats).toEqual({ adds: 6, processed: 3, retries: 0 });
  });

  it('never calls the handler inside add', async () => {
    const q = new WorkQueue({ clock: new SimClock() });
    const seen: string[] = [];
    q.run(async (k) => void seen.push(k), 1);
    q.add('a');
    expect(seen).toEqual([]);
    await q.idle();
    expect(seen).toEqual(['a']);
  });

  it('runs a key re-added during processing once more afterwards, never concurrently', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    const gates = [gate(), gate()];
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    q.run(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await gates[runs++]?.promise;
      running--;
    }, 4);
    q.add('a');
    await clock.settle();
    expect(q.running()).toBe(1);
    q.add('a');
    q.add('a');
    await clock.settle();
    // Four workers, one key: still one run at a time, and the re-adds wait as one.
    expect(runs).toBe(1);
    expect(q.len()).toBe(0);
    gates[0]!.open();
    await clock.settle();
    expect(runs).toBe(2);
    gates[1]!.open();
    await q.idle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('runs at most `workers` keys at once', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    let running = 0;
    let maxRunning = 0;
    const seen: string[] = [];
    q.run(async (k) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      // Finish in a later macrotask so the runs overlap.
      await clock.settle();
      seen.push(k);
      running--;
    }, 3);
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    await q.idle();
    expect(maxRunning).toBe(3);
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
  });

  it('retries a failing key after 5, 10, 20 ms, reports each failure, and resets on success', async () => {
    const clock = new SimClock(1000);
    const errors: [string, string, number][] = [];
    const q = new WorkQueue({
      clock,
      onError: (key, err, attempt) => errors.push([key, err instanceof Error ? err.message : '?', attempt]),
    });
    const at: number[] = [];
    q.run(async () => {
      at.push(clock.now());
      if (at.length <= 3) throw new Error(`fail ${at.length}`);
    }, 1);
    q.add('a');
    await clock.tick(100);
    expect(at).toEqual([1000, 1005, 1015, 1035]);
    expect(errors).toEqual([
      ['a', 'fail 1', 1],
      ['a', 'fail 2', 2],
      ['a', 'fail 3', 3],
    ]);
    expect(q.stats.retries).toBe(3);
    expect(q.retriesOf('a')).toBe(0);
    expect(q.delayed()).toBe(0);
  });

  it('caps the backoff at maxMs, and forget resets it', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock, initialMs: 100, maxMs: 300 });
    const at: number[] = [];
    let failing = true;
    q.run(async () => {
      at.push(clock.now());
      if (failing) throw new Error('no');
    }, 1);
    q.add('a');
    await clock.tick(100 + 200 + 300 + 300);
    expect(at).toEqual([0, 100, 300, 600, 900]);
    expect(q.retriesOf('a')).toBe(5);
    expect(q.delayed()).toBe(1);
    // A delayed key does not keep the queue from being idle.
    await q.idle();
    q.forget('a');
    failing = false;
    await clock.tick(300);
    expect(at).toEqual([0, 100, 300, 600, 900, 1200]);
    failing = true;
    q.add('a');
    await clock.tick(0);
    expect(q.retriesOf('a')).toBe(1);
    await clock.tick(99);
    expect(at).toHaveLength(7);
    await clock.tick(1);
    expect(at).toHaveLength(8);
  });

  it('addAfter waits on the clock and keeps the earliest time per key', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    const at: [string, number][] = [];
    q.run(async (k) => void at.push([k, clock.now()]), 2);
    q.addAfter('a', 50);
    q.addAfter('a', 20);
    q.addAfter('a', 80);
    q.addAfter('b', 0);
    expect(q.delayed()).toBe(1);
    await clock.tick(19);
    expect(at).toEqual([['b', 0]]);
    await clock.tick(100);
    expect(at).toEqual([
      ['b', 0],
      ['a', 20],
    ]);
    expect(clock.pending()).toBe(0);
  });

  it('shutdown waits for running handlers and takes no more keys', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    const g = gate();
    const seen: string[] = [];
    let finished = false;
    q.run(async (k) => {
      seen.push(k);
      await g.promise;
      finished = true;
    }, 1);
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    await clock.settle();
    let down = false;
    const shut = q.shutdown().then(() => (down = true));
    await clock.settle();
    expect(down).toBe(false);
    g.open();
    await shut;
    expect(finished).toBe(true);
    q.add('d');
    await clock.tick(50);
    expect(seen).toEqual(['a']);
    expect(q.len()).toBe(0);
    expect(q.delayed()).toBe(0);
  });

  it('holds typed keys: two values with one id are one key, and the handler gets the value', async () => {
    type Key = { readonly namespace: string; readonly name: string };
    const clock = new SimClock();
    const q = new WorkQueue<Key>({ clock, id: (k) => `${k.namespace}/${k.name}` });
    const seen: Key[] = [];
    q.add({ namespace: 'prod', name: 'web.v2' });
    q.add({ namespace: 'prod', name: 'web.v2' });
    q.add({ namespace: 'v2', name: 'web' });
    expect(q.len()).toBe(2);
    q.run(async (k) => void seen.push(k), 2);
    await q.idle();
    expect(seen).toEqual([
      { namespace: 'prod', name: 'web.v2' },
      { namespace: 'v2', name: 'web' },
    ]);
  });

  it('fail retries a key whose work failed after its run, and with manualForget only forget resets the backoff', async () => {
    const clock = new SimClock();
    const errors: [string, number][] = [];
    const q = new WorkQueue({ clock, manualForget: true, onError: (k, _e, attempt) => errors.push([k, attempt]) });
    const at: number[] = [];
    q.run(async () => void at.push(clock.now()), 1);
    q.add('a');
    await clock.settle();
    // The run succeeded; what it left to do afterwards failed twice: 5 then 10 ms, the run between resetting nothing.
    q.fail('a', new Error('conflict'));
    await clock.tick(5);
    q.fail('a', new Error('conflict'));
    await clock.tick(10);
    expect(at).toEqual([0, 5, 15]);
    expect(errors).toEqual([
      ['a', 1],
      ['a', 2],
    ]);
    q.forget('a');
    q.fail('a', new Error('conflict'));
    await clock.tick(5);
    expect(at).toEqual([0, 5, 15, 20]);
    expect(errors.at(-1)).toEqual(['a', 1]);
  });

  it('idle waits for queued and running keys', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    const g = gate();
    q.run(async () => g.promise, 1);
    q.add('a');
    let idle = false;
    void q.idle().then(() => (idle = true));
    await clock.settle();
    expect(idle).toBe(false);
    g.open();
    await clock.settle();
    expect(idle).toBe(true);
  });

  it('quiet() waits for keys requeued after a delay, not for keys backing off after a failure', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock, initialMs: 1_000 });
    const seen: string[] = [];
    q.run(async (k) => {
      seen.push(k);
      if (k === 'bad') throw new Error('refused');
    }, 1);
    q.addAfter('later', 20);
    expect(q.scheduled()).toBe(1);
    let quiet = false;
    void q.quiet().then(() => (quiet = true));
    await clock.settle();
    expect(quiet).toBe(false);
    clock.advance(20);
    await clock.settle();
    expect(seen).toEqual(['later']);
    expect(quiet).toBe(true);
    q.add('bad');
    await q.quiet();
    // The failed key waits out its backoff; quiet() does not wait for it.
    expect(q.delayed()).toBe(1);
    expect(q.scheduled()).toBe(0);
  });

  it('addAfter within a pending delay runs the key once, at the earlier time', async () => {
    const clock = new SimClock();
    const q = new WorkQueue({ clock });
    const seen: number[] = [];
    q.run(async () => void seen.push(clock.now()), 1);
    q.addAfter('p', 20);
    clock.advance(10);
    q.addAfter('p', 20);
    clock.advance(10);
    await q.quiet();
    expect(seen).toEqual([20]);
  });
});
