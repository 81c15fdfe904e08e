/**
 * Faults on `--backend ovn` leave nothing behind (issue 17, section 4): kill
 * -9 of kovn mid-run, signals at any point, a failed start, a closed stdout.
 * "Nothing" is checked, not assumed: every process of the run (kovn's
 * descendants, and anything whose command line names the run's TMPDIR, as
 * the detached ovn-trace daemon's does) is gone and no run dir is left.
 * Each test has a TMPDIR of its own, so its run dirs are the only ones there.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify, parseAllDocuments } from 'yaml';
import { binaryPath, requireOvn } from '../backends/ovn/control-plane/index.ts';
import { pollUntil } from '../backends/ovn/control-plane/exec.ts';
import { type Proc, runProcesses, running, waitNoneRunning } from '../backends/ovn/control-plane/testing/index.ts';
import { type Kovn, ROOT, runDirs, startKovn } from './testing/index.ts';

// Made in beforeAll, so that a file whose tests are all skipped or filtered out leaves nothing.
let TMP = '';
/** The quickstart with its probes repeated: a run of several seconds on OVN, long enough to be killed mid-run. */
let LONG = '';
beforeAll(() => {
  TMP = mkdtempSync(join(tmpdir(), 'faults-test-'));
  LONG = join(TMP, 'long.yaml');
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'scenarios/quickstart.yaml'), 'utf8')).map((d) => d.toJS());
  const scenario = docs.find((d) => d.kind === 'Scenario');
  scenario.spec.expect = Array.from({ length: 40 }, () => scenario.spec.expect).flat();
  writeFileSync(LONG, docs.map((d) => stringify(d)).join('---\n'));
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const newTmp = (name: string) => mkdtempSync(join(TMP, `${name}-`));

/** Resolves with the run dir once `what` holds for it; fails if kovn ends first. */
async function whenRun(k: Kovn, tmp: string, what: (dir: string) => boolean): Promise<string> {
  return pollUntil(async () => runDirs(tmp).find(what), {
    timeoutMs: 120_000,
    intervalMs: 5,
    abort: () => (k.child.exitCode !== null ? new Error(`kovn ended first: ${k.stderr()}`) : undefined),
    onTimeout: () => new Error(`no run dir in ${tmp}: ${k.stderr()}`),
  });
}

const daemonsUp = (dir: string) => runProcesses(undefined, dir).some((p) => p.comm === 'ovn-trace');

/** Every process of the run ended and no run dir is left (bounds generous: asserts of outcome, not speed). */
async function nothingLeft(before: readonly Proc[], tmp: string): Promise<void> {
  await waitNoneRunning(before, tmp, { since: performance.now(), boundMs: 15_000 });
  await pollUntil(async () => (runDirs(tmp).length === 0 ? true : undefined), {
    timeoutMs: 15_000,
    onTimeout: () => new Error(`left in ${tmp}: ${runDirs(tmp).join(', ')}`),
  });
}

describe.skipIf(!requireOvn('faults'))('faults on --backend ovn leave nothing behind', () => {
  it('kill -9 of kovn mid-run: within 3 s no process of the run is alive, and its dir is removed', async () => {
    const tmp = newTmp('kill');
    const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], { tmp });
    const dir = await whenRun(k, tmp, daemonsUp);
    const before = runProcesses(k.pid, dir);
    expect(before.map((p) => p.comm).sort()).toEqual(
      expect.arrayContaining(['node', 'node', 'ovn-northd', 'ovn-trace', 'ovsdb-server', 'ovsdb-server']),
    );
    const t0 = performance.now();
    process.kill(k.pid, 'SIGKILL');
    const ms = await waitNoneRunning(before, dir, { since: t0, boundMs: 30_000 });
    process.stderr.write(
      `faults.test: kill -9 → no process of the run alive: ${ms.toFixed(0)} ms (${before.length} processes)\n`,
    );
    // The requirement of issue 17, measured from the kill.
    expect(ms).toBeLessThanOrEqual(3_000);
    await nothingLeft([], tmp);
    expect((await k.exited).signal).toBe('SIGKILL');
  });

  it('kill -9 of kovn difftest with a chassis up (ovs-vswitchd, ovn-controller): within 3 s no process of the run is alive', async () => {
    const tmp = newTmp('kill-dp');
    const k = startKovn(['difftest', '--cases', '300', '--oracle', 'both', '--no-save'], { tmp });
    const chassisUp = () =>
      ['ovs-vswitchd', 'ovn-controller'].every((c) => runProcesses(undefined, tmp).some((p) => p.comm === c));
    await whenRun(k, tmp, chassisUp);
    const before = runProcesses(k.pid, tmp);
    expect(before.map((p) => p.comm)).toEqual(
      expect.arrayContaining(['ovs-vswitchd', 'ovn-controller', 'ovn-northd', 'ovsdb-server']),
    );
    const t0 = performance.now();
    process.kill(k.pid, 'SIGKILL');
    const ms = await waitNoneRunning(before, tmp, { since: t0, boundMs: 30_000 });
    process.stderr.write(
      `faults.test: difftest kill -9 → no process of the run alive: ${ms.toFixed(0)} ms (${before.length} processes)\n`,
    );
    expect(ms).toBeLessThanOrEqual(3_000);
    await nothingLeft([], tmp);
  });

  it('the next run removes the dir and ends the daemons of a run whose kovn and guard were both killed', async () => {
    const tmp = newTmp('next');
    const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], { tmp });
    const dir = await whenRun(k, tmp, daemonsUp);
    const guard = runProcesses(k.pid, undefined).find(
      (p) => p.comm === 'node' && readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes('guard-main.mjs'),
    );
    expect(guard).toBeDefined();
    process.kill((guard as Proc).pid, 'SIGKILL');
    await waitNoneRunning([guard as Proc], undefined, { since: performance.now(), boundMs: 15_000 });
    const daemons = runProcesses(undefined, dir);
    process.kill(k.pid, 'SIGKILL');
    await k.exited;
    // Nobody cleaned up: the run's daemons and dir are still there.
    expect(
      daemons
        .filter(running)
        .map((p) => p.comm)
        .sort(),
    ).toEqual(expect.arrayContaining(['ovn-northd', 'ovn-trace', 'ovsdb-server', 'ovsdb-server']));
    expect(existsSync(dir)).toBe(true);

    const next = startKovn(['sim', 'run', 'scenarios/quickstart.yaml', '--backend', 'ovn'], { tmp });
    expect((await next.exited).code).toBe(0);
    await nothingLeft(daemons, tmp);
  });

  it('SIGINT while the control plane starts: exit 130, no dir, no process', async () => {
    const tmp = newTmp('int-early');
    const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], { tmp });
    const dir = await whenRun(k, tmp, () => true);
    const before = runProcesses(k.pid, dir);
    process.kill(k.pid, 'SIGINT');
    expect(await k.exited).toEqual({ code: 130, signal: null });
    expect(runDirs(tmp)).toEqual([]);
    await nothingLeft(before, tmp);
  });

  it('SIGINT while a one-shot tool writes into the run dir: exit 130, no dir, no process', async () => {
    // An ovsdb-tool that keeps writing into the run dir (as `ovsdb-tool
    // create` writes its db and lock file) until it is ended: the exit hooks
    // must end it before they remove the dir, or the removal races with it
    // and leaves the dir behind. It writes new names, and SIGINT comes once
    // there are thousands, so that removing them takes long enough for the
    // race to be lost every time instead of under load only.
    const tmp = newTmp('int-tool');
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    const busy = [
      '#!/bin/sh',
      'dir=$(dirname "$2")',
      'i=0',
      'while [ $i -lt 30000 ]; do : > "$dir/busy-$i"; i=$((i + 1)); done',
      `exec ${binaryPath('ovsdb-tool')} "$@"`,
    ];
    writeFileSync(join(bin, 'ovsdb-tool'), `${busy.join('\n')}\n`);
    chmodSync(join(bin, 'ovsdb-tool'), 0o755);
    const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], {
      tmp,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    const dir = await whenRun(k, tmp, (d) => existsSync(join(d, 'busy-2000')));
    const before = runProcesses(k.pid, dir);
    expect(before.map((p) => p.comm)).toContain('ovsdb-tool');
    process.kill(k.pid, 'SIGINT');
    expect(await k.exited).toEqual({ code: 130, signal: null });
    expect(runDirs(tmp)).toEqual([]);
    await nothingLeft(before, tmp);
  });

  /** Sends `signal` unless kovn has ended already. */
  const signal = (k: Kovn, s: NodeJS.Signals) => {
    if (k.child.exitCode === null && k.child.signalCode === null) process.kill(k.pid, s);
  };

  for (const [name, code] of [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
  ] as const) {
    it(`${name} mid-run: exit ${code}, no dir, no process`, async () => {
      const tmp = newTmp('signal');
      const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], { tmp });
      const dir = await whenRun(k, tmp, daemonsUp);
      const before = runProcesses(k.pid, dir);
      process.kill(k.pid, name);
      expect(await k.exited).toEqual({ code, signal: null });
      expect(runDirs(tmp)).toEqual([]);
      await nothingLeft(before, tmp);
    });
  }

  it('a second Ctrl-C while the first one cleans up: exit 130, no dir, no process', async () => {
    const tmp = newTmp('int-twice');
    const k = startKovn(['sim', 'run', LONG, '--backend', 'ovn'], { tmp });
    const dir = await whenRun(k, tmp, daemonsUp);
    const before = runProcesses(k.pid, dir);
    const daemons = before.filter((p) => p.comm !== 'node' && p.comm !== 'esbuild');
    process.kill(k.pid, 'SIGINT');
    // The first Ctrl-C is being acted on once a daemon of the run has stopped (or kovn has ended).
    await pollUntil(async () => (k.child.exitCode !== null || !daemons.every(running) ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 1,
      onTimeout: () => new Error('the first SIGINT stopped nothing'),
    });
    signal(k, 'SIGINT');
    expect(await k.exited).toEqual({ code: 130, signal: null });
    expect(runDirs(tmp)).toEqual([]);
    await nothingLeft(before, tmp);
  });

  it('a failed start (ovn-northd exits at once): exit 1 naming it, no dir, no process', async () => {
    const tmp = newTmp('failed');
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'ovn-northd'), '#!/bin/sh\necho "ovn-northd: refusing to start (test)" >&2\nexit 1\n');
    chmodSync(join(bin, 'ovn-northd'), 0o755);
    const k = startKovn(['sim', 'run', 'scenarios/quickstart.yaml', '--backend', 'ovn'], {
      tmp,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    expect((await k.exited).code).toBe(1);
    await k.closed;
    expect(k.stderr()).toMatch(/^kovn: ovn-northd northd in .*refusing to start \(test\)/s);
    expect(runDirs(tmp)).toEqual([]);
    await nothingLeft([], tmp);
  });

  for (const [name, args] of [
    [
      'trace',
      [
        'trace',
        'scenarios/quickstart.yaml',
        '--from',
        'default/debug',
        '--to',
        'data/db-0',
        '--protocol',
        'TCP',
        '--port',
        '5432',
        '--backend',
        'ovn',
      ],
    ],
    ['difftest', ['difftest', '--cases', '2', '--oracle', 'trace', '--no-save']],
  ] as const) {
    it(`${name} on OVN into a closed stdout: exit 141, no error, no dir, no process`, async () => {
      const tmp = newTmp('epipe');
      const k = startKovn(args, { tmp, closedStdout: true });
      expect((await k.exited).code).toBe(141);
      await k.closed;
      expect(k.stderr()).not.toMatch(/EPIPE|Error|^\s+at /m);
      await nothingLeft([], tmp);
    });
  }
});
