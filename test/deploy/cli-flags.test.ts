/**
 * Every `kovn` command line in deploy/'s containers is one the CLI takes:
 * its subcommand exists and each flag it passes is one that subcommand
 * declares (read from the subcommand's own --help, as an operator would).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEPLOY, ROOT, readManifests } from './manifests.ts';
import { allContainers, commandLine, workloads } from './workloads.ts';

const run = promisify(execFile);
const KOVN = join(ROOT, 'cli', 'bin', 'kovn.js');

const lines = workloads(readManifests(DEPLOY)).flatMap((w) =>
  allContainers(w.pod)
    .map((c) => ({ where: `${w.name}/${c.name}`, line: commandLine(c) }))
    .filter((x) => x.line[0] === 'kovn'),
);

/** The flags a subcommand's --help lists. */
async function declaredFlags(subcommand: readonly string[]): Promise<Set<string>> {
  const { stdout } = await run('node', [KOVN, ...subcommand, '--help'], { env: { ...process.env, NO_COLOR: '1' } });
  const options = stdout.split(/^Options:$/m)[1] ?? '';
  return new Set([...options.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!));
}

describe('kovn command lines of deploy/', () => {
  it('are the controller and the daemon', () => {
    expect(lines.map((l) => `${l.where}: ${l.line[1]}`).sort()).toEqual([
      'kovn-controller/kovn-controller: controller',
      'kovn-node/kovn-daemon: daemon',
    ]);
  });

  it.each(lines)('$where: every flag is declared by its subcommand', async ({ line }) => {
    const sub = line.slice(1).filter((a) => !a.startsWith('-'));
    expect(sub).toHaveLength(1);
    const declared = await declaredFlags(sub);
    expect(declared.size).toBeGreaterThan(3);
    const used = line.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
    expect(used.filter((f) => !declared.has(f))).toEqual([]);
  });
});
