import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePluginBuilt } from '../bundle/index.ts';
import type { CniResult } from './protocol.ts';
import { type FakeAnswer, type Ran as Ran0, runExecutable, startFakeDaemon } from './testing.ts';

let plugin: string;
let dir: string;

beforeAll(async () => {
  plugin = await ensurePluginBuilt();
  dir = await mkdtemp(join(tmpdir(), 'kovn-cni-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Ran extends Ran0 {
  readonly body: { code?: number; msg?: string; [k: string]: unknown } | undefined;
}

/** Runs the executable with only the CNI variables (and PATH), as a runtime would. */
async function runPlugin(env: Record<string, string>, stdin: string, exe = plugin): Promise<Ran> {
  const r = await runExecutable([exe], env, stdin);
  return { ...r, body: r.stdout ? JSON.parse(r.stdout) : undefined };
}

const RESULT: CniResult = {
  cniVersion: '1.1.0',
  interfaces: [{ name: 'eth0', mac: '00:00:00:aa:bb:cc', sandbox: '/run/netns/p1' }],
  ips: [{ address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 }],
  routes: [{ dst: '0.0.0.0/0', gw: '10.16.0.1' }],
};

const env = (command: string): Record<string, string> => ({
  CNI_COMMAND: command,
  CNI_CONTAINERID: 'c0ffee',
  CNI_NETNS: '/run/netns/p1',
  CNI_IFNAME: 'eth0',
  CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0',
  CNI_PATH: '/opt/cni/bin',
});

const conf = (socket: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ cniVersion: '1.0.0', name: 'kovn', type: 'kovn', server_socket: socket, ...extra });

let daemons = 0;
async function withDaemon<T>(answer: (cmd: string) => FakeAnswer, body: (socket: string) => Promise<T>): Promise<T> {
  const d = await startFakeDaemon(join(dir, `d${daemons++}.sock`), (r) => answer(r.command));
  try {
    return await body(d.socketPath);
  } finally {
    await d.close();
  }
}

describe('the plugin executable', () => {
  it('answers VERSION (also under its second name, kovn-cni)', async () => {
    for (const exe of [plugin, join(plugin, '..', 'kovn-cni')]) {
      const r = await runPlugin({ CNI_COMMAND: 'VERSION' }, '{"cniVersion":"1.0.0"}', exe);
      expect(r.status).toBe(0);
      expect(r.body).toEqual({ cniVersion: '1.0.0', supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] });
    }
  });

  it('ADD: one request over the socket, the result printed in the config version', async () => {
    const d = await startFakeDaemon(join(dir, 'add.sock'), () => ({ ok: true, result: RESULT }));
    try {
      const r = await runPlugin(env('ADD'), conf(d.socketPath, { cniVersion: '0.4.0' }));
      expect(r.status).toBe(0);
      expect(r.body).toEqual({
        cniVersion: '0.4.0',
        interfaces: RESULT.interfaces,
        ips: [{ version: '4', address: '10.16.0.5/16', gateway: '10.16.0.1', interface: 0 }],
        routes: RESULT.routes,
      });
      expect(d.requests).toEqual([
        {
          command: 'ADD',
          cniVersion: '0.4.0',
          network: 'kovn',
          containerId: 'c0ffee',
          netns: '/run/netns/p1',
          ifName: 'eth0',
          podName: 'web-0',
          podNamespace: 'default',
          provider: 'ovn',
        },
      ]);
    } finally {
      await d.close();
    }
  });

  it('daemon down: ADD fails with 11 and a message naming the socket', async () => {
    const socket = join(dir, 'nobody-listens.sock');
    const r = await runPlugin(env('ADD'), conf(socket));
    expect(r.status).not.toBe(0);
    expect(r.body).toMatchObject({ cniVersion: '1.0.0', code: 11 });
    expect(r.body?.msg).toBe(`cannot connect to the kovn daemon at ${socket}: ENOENT`);
    expect(r.stderr).toContain(`kovn-cni: cannot connect to the kovn daemon at ${socket}`);
  });

  it('daemon down: DEL succeeds and prints nothing on stdout; twice too', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await runPlugin(env('DEL'), conf(join(dir, 'nobody-listens.sock')));
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
    }
  });

  it('DEL twice with nothing there: the daemon says ok, the plugin succeeds both times', async () => {
    await withDaemon(
      () => ({ ok: true }),
      async (socket) => {
        for (let i = 0; i < 2; i++) expect((await runPlugin(env('DEL'), conf(socket))).status).toBe(0);
      },
    );
  });

  it('a daemon that closes without answering: 11; one that answers garbage: 6', async () => {
    await withDaemon(
      () => ({ close: true }),
      async (socket) => {
        const r = await runPlugin(env('ADD'), conf(socket));
        expect(r.body).toMatchObject({ code: 11 });
        expect(r.body?.msg).toContain('without an answer');
      },
    );
    await withDaemon(
      () => ({ raw: 'HTTP/1.1 400 Bad Request\n' }),
      async (socket) => expect((await runPlugin(env('ADD'), conf(socket))).body).toMatchObject({ code: 6 }),
    );
  });

  it("the daemon's error (annotation timeout) passes through", async () => {
    const error = { code: 100, msg: 'pod default/web-0 has no ovn.kubernetes.io/routed after 30 s' };
    await withDaemon(
      () => ({ ok: false, error }),
      async (socket) => {
        const r = await runPlugin(env('ADD'), conf(socket));
        expect(r.status).toBe(1);
        expect(r.body).toEqual({ cniVersion: '1.0.0', ...error });
      },
    );
  });

  it('STATUS with the daemon down: 50; up: success', async () => {
    const down = await runPlugin(
      { CNI_COMMAND: 'STATUS' },
      conf(join(dir, 'nobody-listens.sock'), { cniVersion: '1.1.0' }),
    );
    expect(down.body).toMatchObject({ code: 50 });
    await withDaemon(
      () => ({ ok: true }),
      async (socket) => {
        const up = await runPlugin({ CNI_COMMAND: 'STATUS' }, conf(socket, { cniVersion: '1.1.0' }));
        expect(up.status).toBe(0);
        expect(up.stdout).toBe('');
      },
    );
  });

  it('bad config: 7 (no name) and 6 (not JSON); missing env: 4; unsupported version: 1', async () => {
    const socket = join(dir, 'unused.sock');
    expect((await runPlugin(env('ADD'), conf(socket, { name: '' }))).body).toMatchObject({ code: 7 });
    expect((await runPlugin(env('ADD'), '{')).body).toMatchObject({ code: 6 });
    const missing = await runPlugin({ CNI_COMMAND: 'ADD', CNI_IFNAME: 'eth0' }, conf(socket));
    expect(missing.body).toMatchObject({
      code: 4,
      msg: 'required env variables missing for ADD: CNI_CONTAINERID, CNI_NETNS',
    });
    expect((await runPlugin(env('ADD'), conf(socket, { cniVersion: '0.2.0' }))).body).toMatchObject({ code: 1 });
  });
});
