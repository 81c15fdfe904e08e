import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePluginBuilt } from '../bundle/index.ts';
import { listenDaemon } from '../daemon/server.ts';
import type { DaemonRequest, DaemonResponse } from './protocol.ts';
import { runExecutable } from './testing.ts';

let dir: string;
let plugin: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kovn-cni-wire-'));
  plugin = await ensurePluginBuilt();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (env: Record<string, string>, stdin: string) => runExecutable([plugin], env, stdin);

describe('plugin and daemon on one socket', () => {
  it('ADD, CHECK, DEL, STATUS, GC: decoded by the daemon as sent, answered as printed', async () => {
    const seen: DaemonRequest[] = [];
    const result = {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'eth0', mac: '0a:58:0a:10:00:05', mtu: 1400, sandbox: '/run/netns/x' }],
      ips: [{ address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 }],
      routes: [{ dst: '0.0.0.0/0', gw: '10.16.0.1' }],
    };
    const server = await listenDaemon(join(dir, 'run', 'daemon.sock'), async (req): Promise<DaemonResponse> => {
      seen.push(req);
      if (req.command === 'CHECK') return { ok: false, error: { code: 103, msg: 'pod default/a: eth0 missing' } };
      return req.command === 'ADD' ? { ok: true, result } : { ok: true };
    });
    try {
      expect((await stat(server.path)).mode & 0o777).toBe(0o600);
      const conf = (extra = {}) =>
        JSON.stringify({ cniVersion: '1.1.0', name: 'kovn', type: 'kovn', server_socket: server.path, ...extra });
      const att = {
        CNI_CONTAINERID: 'c1',
        CNI_NETNS: '/run/netns/x',
        CNI_IFNAME: 'eth0',
        CNI_ARGS: 'K8S_POD_NAME=a;K8S_POD_NAMESPACE=default',
        CNI_PATH: '/opt/cni/bin',
      };
      const add = await run({ ...att, CNI_COMMAND: 'ADD' }, conf());
      expect(add.status).toBe(0);
      expect(JSON.parse(add.stdout)).toEqual({ ...result, cniVersion: '1.1.0' });
      const check = await run({ ...att, CNI_COMMAND: 'CHECK' }, conf({ prevResult: JSON.parse(add.stdout) }));
      expect(JSON.parse(check.stdout)).toEqual({ cniVersion: '1.1.0', code: 103, msg: 'pod default/a: eth0 missing' });
      expect((await run({ ...att, CNI_COMMAND: 'DEL' }, conf())).status).toBe(0);
      expect((await run({ CNI_COMMAND: 'STATUS' }, conf())).status).toBe(0);
      const keep = [{ containerID: 'c1', ifname: 'eth0' }];
      expect(
        (await run({ CNI_COMMAND: 'GC', CNI_PATH: '/x' }, conf({ 'cni.dev/valid-attachments': keep }))).status,
      ).toBe(0);
      expect(seen.map((r) => r.command)).toEqual(['ADD', 'CHECK', 'DEL', 'STATUS', 'GC']);
      expect(seen[0]).toEqual({
        command: 'ADD',
        cniVersion: '1.1.0',
        network: 'kovn',
        containerId: 'c1',
        netns: '/run/netns/x',
        ifName: 'eth0',
        podName: 'a',
        podNamespace: 'default',
        provider: 'ovn',
      });
      expect(seen[1]?.prevResult?.ips).toEqual(result.ips);
      expect(seen[4]?.validAttachments).toEqual([{ containerId: 'c1', ifName: 'eth0' }]);
    } finally {
      await server.close();
    }
  });
});
