// A runtime world killed with SIGKILL (no JavaScript runs at death) leaves nothing: the run
// guard ends its processes (the daemon's, vswitchd, ovn-controller, the control plane) and
// deletes the namespaces its run dir lists (the host network with the veths' host ends, the pod's).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../backends/ovn/control-plane/exec.ts';
import { requireOvn } from '../../backends/ovn/control-plane/binaries.ts';
import { requireRuntime } from './support.ts';

const FIXTURE = fileURLToPath(new URL('./kill.fixture.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const runs = requireOvn('runtime world, kill -9') && requireRuntime(['netns'], 'runtime world, kill -9');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!runs)('runtime world killed with SIGKILL', () => {
  it('its namespaces, processes and run dir are gone within seconds', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const line = await pollUntil(async () => (out.includes('\n') ? out.split('\n')[0] : undefined), {
      timeoutMs: 120_000,
      abort: () => (child.exitCode !== null ? new Error(`fixture failed: ${err}`) : undefined),
      onTimeout: () => new Error(`fixture printed nothing: ${err}`),
    });
    const seen = JSON.parse(line) as { dir: string; netns: string[]; pids: number[] };
    // The host network and the pod's namespace, there while the process lives.
    expect(seen.netns).toHaveLength(2);
    for (const n of seen.netns) expect(existsSync(`/run/netns/${n}`)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    const left = () => [
      ...seen.netns.filter((n) => existsSync(`/run/netns/${n}`)),
      ...seen.pids.filter(alive).map(String),
      ...(existsSync(seen.dir) ? [seen.dir] : []),
    ];
    await pollUntil(async () => (left().length === 0 ? true : undefined), {
      timeoutMs: 15_000,
      onTimeout: () => new Error(`left after kill -9: ${left().join(', ')}`),
    });
  });
});
