import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVN_BINARIES } from './binaries.ts';
import { NETNS_LIST, OWNER_MARKER, type Owner, selfOwner } from './proc.mjs';

const GUARD = fileURLToPath(new URL('./guard-main.mjs', import.meta.url));
let TMP = '';
// Made in beforeAll, so that a file whose tests are all skipped or filtered out leaves nothing.
beforeAll(() => {
  TMP = mkdtempSync(join(tmpdir(), 'run-guard-test-'));
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/**
 * Runs a guard with `base` as TMPDIR, writes `lines` to its pipe and closes
 * it: the guard sweeps, ends its run, and exits.
 */
async function runGuard(base: string, owner: Owner, lines = ''): Promise<void> {
  const child = spawn(process.execPath, [GUARD, JSON.stringify(owner), OVN_BINARIES.join(',')], {
    env: { ...process.env, TMPDIR: base },
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin.end(lines);
  expect(await exited).toBe(0);
}

function runDir(base: string, name: string, marker?: object): string {
  const dir = join(base, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'nb.db'), '');
  if (marker !== undefined) writeFileSync(join(dir, OWNER_MARKER), JSON.stringify(marker));
  return dir;
}

describe.skipIf(selfOwner() === undefined)('the run guard sweeps the run dirs whose owner is gone', () => {
  it('removes a dead owner, a reused pid and another boot; keeps a live owner, no marker, another pid namespace', async () => {
    const me = selfOwner() as Owner;
    const exited = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
    expect(exited.status).toBe(0);
    const base = mkdtempSync(join(TMP, 'sweep-'));
    const dirs = {
      live: runDir(base, 'kovn-cp-live', me),
      reusedPid: runDir(base, 'kovn-cp-reused', { ...me, start: `${me.start}9` }),
      deadPid: runDir(base, 'kovn-cp-dead', { ...me, pid: exited.pid }),
      otherBoot: runDir(base, 'kovn-cp-boot', { ...me, boot: 'another-boot' }),
      noMarker: runDir(base, 'kovn-cp-nomarker'),
      otherPidNs: runDir(base, 'kovn-cp-ns', { ...me, pid: exited.pid, pidns: 'pid:[1]' }),
      notOurs: runDir(base, 'other-dead', { ...me, pid: exited.pid }),
    };
    // The guard's own owner: a process that exists, so that nothing of its own is at stake.
    await runGuard(base, me);
    const left = Object.fromEntries(Object.entries(dirs).map(([k, d]) => [k, existsSync(d)]));
    expect(left).toEqual({
      live: true,
      reusedPid: false,
      deadPid: false,
      otherBoot: false,
      noMarker: true,
      otherPidNs: true,
      notOurs: true,
    });
  });

  it('at EOF removes only the dirs it was told of whose marker names its owner', async () => {
    const me = selfOwner() as Owner;
    const base = mkdtempSync(join(TMP, 'eof-'));
    const mine = runDir(base, 'kovn-cp-mine', me);
    const foreign = runDir(base, 'kovn-cp-foreign', { ...me, pid: 1 });
    await runGuard(join(base, 'empty'), me, `dir ${mine}\ndir ${foreign}\n`);
    expect([existsSync(mine), existsSync(foreign)]).toEqual([false, true]);
  });
});

const netnsList = () =>
  spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(' ')[0] ?? '');

describe.skipIf(selfOwner() === undefined || process.getuid?.() !== 0)(
  'the network namespaces a run dir lists go with it (the lab)',
  () => {
    it("a later run's sweep deletes a dead owner's namespaces, and keeps a live owner's", async () => {
      const me = selfOwner() as Owner;
      const exited = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
      const base = mkdtempSync(join(TMP, 'netns-'));
      const tag = `kgt${process.pid}`;
      const dead = runDir(base, 'kovn-lab-dead', { ...me, pid: exited.pid });
      const live = runDir(base, 'kovn-lab-live', me);
      try {
        for (const [dir, ns] of [
          [dead, `${tag}-dead`],
          [live, `${tag}-live`],
        ] as const) {
          writeFileSync(join(dir, NETNS_LIST), `${ns}\n`);
          expect(spawnSync('ip', ['netns', 'add', ns]).status).toBe(0);
        }
        await runGuard(base, me);
        expect(netnsList().filter((n) => n.startsWith(tag))).toEqual([`${tag}-live`]);
        expect(existsSync(dead)).toBe(false);
      } finally {
        for (const n of netnsList().filter((x) => x.startsWith(tag))) spawnSync('ip', ['netns', 'del', n]);
      }
    });
  },
);
