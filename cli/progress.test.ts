import { describe, expect, it } from 'vitest';
import { duration, LONG_MS, Progress } from './progress.ts';

/** A Progress on a clock the test moves. */
function harness(tty: boolean) {
  let t = 1_000;
  const lines: string[] = [];
  const p = new Progress({ now: () => t, write: (l) => lines.push(l), tty });
  return {
    p,
    lines,
    at: (ms: number) => {
      t = 1_000 + ms;
    },
  };
}

describe('Progress', () => {
  it('says nothing of a short run when stderr is no terminal', () => {
    const h = harness(false);
    h.p.report('loading x.yaml');
    h.at(1_000);
    h.p.report('controller starting');
    h.at(LONG_MS - 1);
    h.p.tick();
    expect(h.lines).toEqual([]);
  });

  it('when stderr is no terminal, shows a long run every few seconds, a silent phase included', () => {
    const h = harness(false);
    h.p.report('controller starting');
    h.at(LONG_MS);
    h.p.tick();
    expect(h.lines).toEqual(['kovn: controller starting, 5 s in\n']);
    // A phase that reports nothing: the timer shows it again, no more often than every LONG_MS.
    h.at(LONG_MS + 1_000);
    h.p.tick();
    expect(h.lines).toHaveLength(1);
    h.at(2 * LONG_MS);
    h.p.tick();
    expect(h.lines[1]).toBe('kovn: controller starting, 10 s in\n');
    // Counted work: a line per LONG_MS however many reports come, with the rate and the time left.
    for (let i = 1; i < 100; i++) {
      h.at(2 * LONG_MS + i * 100);
      h.p.report(`step 0: probes ${i * 1000}/1000000`, { done: i * 1000, total: 1_000_000 });
    }
    expect(h.lines).toHaveLength(3);
    expect(h.lines[2]).toBe('kovn: step 0: probes 50000/1000000 (5.0%, 10,000/s, about 1 min 35 s left), 15 s in\n');
  });

  it('on a terminal, shows each phase at once and counted work at most every half second', () => {
    const h = harness(true);
    h.p.report('loading x.yaml');
    expect(h.lines).toEqual(['kovn: loading x.yaml\n']);
    h.at(100);
    h.p.report('controller starting');
    expect(h.lines).toHaveLength(1);
    // Held back, then shown by the timer.
    h.at(600);
    h.p.tick();
    expect(h.lines[1]).toBe('kovn: controller starting\n');
    h.at(700);
    h.p.report('step 0: probes 1000/2000', { done: 1000, total: 2000 });
    expect(h.lines).toHaveLength(2);
    h.at(1_100);
    h.p.report('step 0: probes 2000/2000', { done: 2000, total: 2000 });
    expect(h.lines[2]).toBe('kovn: step 0: probes 2000/2000 (100%)\n');
  });

  it('writes durations as a person reads them', () => {
    expect([duration(4_400), duration(75_000), duration(3 * 3600_000 + 33 * 60_000)]).toEqual([
      '4 s',
      '1 min 15 s',
      '3 h 33 min',
    ]);
  });
});
