/**
 * How `kovn` ends when its environment fails it: a temp dir it cannot write
 * (one clear line, before tsx's cache could crash) and a reader that went
 * away (EPIPE: a quiet end with 141). The OVN backend's signals and faults
 * are in faults.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKovn } from './testing/index.ts';

let TMP = '';
const cleanups: (() => void)[] = [];
// Made in beforeAll, so that a file whose tests are all filtered out leaves nothing.
beforeAll(() => {
  TMP = mkdtempSync(join(tmpdir(), 'lifecycle-test-'));
});
afterAll(() => {
  for (const c of cleanups) c();
  rmSync(TMP, { recursive: true, force: true });
});

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A directory this process cannot write: mode 0555, and for root (whom modes
 * do not stop) the immutable attribute as well. Fails when neither works here.
 */
function readOnlyDir(): string {
  const dir = mkdtempSync(join(TMP, 'ro-'));
  chmodSync(dir, 0o555);
  cleanups.push(() => chmodSync(dir, 0o755));
  if (writable(dir)) {
    const set = spawnSync('chattr', ['+i', dir], { encoding: 'utf8' });
    cleanups.unshift(() => spawnSync('chattr', ['-i', dir]));
    if (writable(dir)) throw new Error(`cannot make ${dir} read-only here (chattr +i: ${set.stderr || set.error})`);
  }
  return dir;
}

describe('a temp dir kovn cannot write', () => {
  for (const backend of ['sim', 'ovn']) {
    it(`gives one clear line and exit 1 (--backend ${backend})`, async () => {
      const tmp = readOnlyDir();
      const k = startKovn(['sim', 'run', 'scenarios/quickstart.yaml', '--backend', backend], { tmp });
      expect((await k.exited).code).toBe(1);
      await k.closed;
      expect(k.stderr()).toBe(
        `kovn: the temp directory ${tmp} is not writable (EPERM); set TMPDIR to a writable directory\n`,
      );
      expect(k.stdout()).toBe('');
    });
  }
});

describe('a closed stdout ends the command quietly', () => {
  const commands: Record<string, string[]> = {
    trace: [
      'trace',
      'scenarios/quickstart.yaml',
      '--from',
      'default/debug',
      '--to',
      'svc/shop/web',
      '--protocol',
      'TCP',
      '--port',
      '80',
    ],
    'sim run': ['sim', 'run', 'scenarios/quickstart.yaml'],
    'sim connectivity': ['sim', 'connectivity', 'scenarios/quickstart.yaml'],
    bench: ['bench', 'ipam', '--allocations', '1000'],
  };
  for (const [name, args] of Object.entries(commands)) {
    it(`${name}: exit 141 (as SIGPIPE would end it), no error on stderr`, async () => {
      const k = startKovn(args, { tmp: TMP, closedStdout: true });
      const { code } = await k.exited;
      await k.closed;
      expect(code).toBe(141);
      // Its own notes may be there (progress, a declared-ports note); no error, no stack.
      expect(k.stderr()).not.toMatch(/EPIPE|Error|^\s+at /m);
    });
  }
});
