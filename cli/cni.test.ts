import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePluginBuilt } from '../node/bundle/index.ts';
import { runExecutable, startFakeDaemon } from '../node/cni/testing.ts';
import { ROOT } from './testing/index.ts';

let dir: string;
let plugin: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kovn-cli-cni-'));
  plugin = await ensurePluginBuilt();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (cmd: readonly string[], env: Record<string, string>, stdin: string) =>
  runExecutable(cmd, { TMPDIR: dir, ...env }, stdin, { cwd: ROOT });

describe('kovn cni', () => {
  it('answers VERSION, ADD, a bad config and a missing variable as dist/cni/kovn does', async () => {
    const d = await startFakeDaemon(join(dir, 'd.sock'), () => ({
      ok: true,
      result: { cniVersion: '1.1.0', ips: [{ address: '10.16.0.9/16', gateway: '10.16.0.1' }] },
    }));
    const conf = JSON.stringify({ cniVersion: '0.3.1', name: 'kovn', type: 'kovn', server_socket: d.socketPath });
    const add = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'c1',
      CNI_NETNS: '/run/netns/x',
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'K8S_POD_NAME=a;K8S_POD_NAMESPACE=b',
    };
    const cases: [Record<string, string>, string][] = [
      [{ CNI_COMMAND: 'VERSION' }, '{"cniVersion":"0.4.0"}'],
      [add, conf],
      [add, '{"cniVersion":"1.0.0","type":"kovn"}'],
      [{ ...add, CNI_NETNS: '' }, conf],
    ];
    try {
      for (const [env, stdin] of cases) {
        const viaCli = await run([process.execPath, join(ROOT, 'cli/bin/kovn.js'), 'cni'], env, stdin);
        const viaBundle = await run([plugin], env, stdin);
        expect(viaCli, JSON.stringify(env)).toEqual(viaBundle);
      }
      expect(d.requests).toHaveLength(2);
    } finally {
      await d.close();
    }
  });
});
