/**
 * The README tells the truth: exactly two set-up commands (the main job, the test suite),
 * and the main job's output shown there is what the command prints.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('has exactly two set-up commands: the main job and the test suite', () => {
    const section = README.split('## Set-up on a fresh machine')[1]!.split('\n## ')[0]!;
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const commands = block
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm ci && npx kovn sim run scenarios/quickstart.yaml', 'npm ci && npm test']);
  });

  it("shows the main job's output as the command prints it", { timeout: 60_000 }, async () => {
    const shown = /```text\n([\s\S]*?)```/.exec(README)![1]!;
    const { stdout } = await promisify(execFile)(
      'node',
      [join(ROOT, 'cli', 'bin', 'kovn.js'), 'sim', 'run', 'scenarios/quickstart.yaml'],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(stdout).toBe(shown);
  });
});
