import { describe, expect, it } from 'vitest';
import { realClock, SimClock } from './clock.ts';

describe('SimClock', () => {
  it('fires due timers in time order, then insertion order, including ones set while firing', () => {
    const c = new SimClock(100);
    const log: string[] = [];
    c.setTimeout(() => log.push(`b@${c.now()}`), 20);
    c.setTimeout(() => {
      log.push(`a@${c.now()}`);
      c.setTimeout(() => log.push(`a2@${c.now()}`), 5);
      c.setTimeout(() => log.push(`late@${c.now()}`), 50);
    }, 10);
    c.setTimeout(() => log.push(`b'@${c.now()}`), 20);
    expect(c.pending()).toBe(3);
    expect(c.advance(20)).toBe(4);
    expect(log).toEqual(['a@110', 'a2@115', 'b@120', "b'@120"]);
    expect(c.now()).toBe(120);
    expect(c.pending()).toBe(1);
    expect(c.nextAt()).toBe(160);
  });

  it('clearTimeout cancels, and a zero or negative delay is due now', () => {
    const c = new SimClock();
    let fired = 0;
    const h = c.setTimeout(() => fired++, 5);
    c.clearTimeout(h);
    c.setTimeout(() => fired++, -3);
    expect(c.advance(0)).toBe(1);
    c.advance(10);
    expect(fired).toBe(1);
    expect(c.pending()).toBe(0);
  });

  it('runUntilIdle jumps to each next timer and stops at the limit', () => {
    const c = new SimClock();
    const at: number[] = [];
    const chain = (n: number): void => {
      at.push(c.now());
      if (n > 0) c.setTimeout(() => chain(n - 1), 1000);
    };
    c.setTimeout(() => chain(3), 1000);
    expect(c.runUntilIdle(2500)).toBe(2);
    expect(at).toEqual([1000, 2000]);
    expect(c.now()).toBe(2500);
    expect(c.runUntilIdle()).toBe(2);
    expect(at).toEqual([1000, 2000, 3000, 4000]);
    expect(c.pending()).toBe(0);
  });

  it('runUntilIdle refuses to spin for ever', () => {
    const c = new SimClock();
    const again = (): void => {
      c.setTimeout(again, 1);
    };
    again();
    expect(() => c.runUntilIdle()).toThrow(/reschedules itself/);
  });

  it('tick fires timers set by asynchronous work within the window', async () => {
    const c = new SimClock();
    const at: number[] = [];
    const step = async (n: number): Promise<void> => {
      await Promise.resolve();
      at.push(c.now());
      if (n > 0) c.setTimeout(() => void step(n - 1), 10);
    };
    c.setTimeout(() => void step(2), 10);
    await c.tick(25);
    expect(at).toEqual([10, 20]);
    expect(c.now()).toBe(25);
    await c.tick(5);
    expect(at).toEqual([10, 20, 30]);
  });

  it('settle runs promise callbacks and the timers due now', async () => {
    const c = new SimClock();
    let done = false;
    void Promise.resolve().then(() => c.setTimeout(() => (done = true), 0));
    await c.settle();
    expect(done).toBe(true);
  });
});

describe('realClock', () => {
  it('reads wall time and runs host timers', async () => {
    const before = Date.now();
    expect(realClock.now()).toBeGreaterThanOrEqual(before);
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 0));
    let fired = false;
    const h = realClock.setTimeout(() => (fired = true), 0);
    realClock.clearTimeout(h);
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 5));
    expect(fired).toBe(false);
  });
});
