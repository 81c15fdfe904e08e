/**
 * For the plugin's tests: a stand-in daemon, a unix-socket server speaking
 * protocol.ts (one JSON line each way per connection) that records each
 * request and answers what the test says, including the broken answers a
 * real daemon might give (closing without a line, a line that is not JSON);
 * and the plugin run as a runtime runs it (runExecutable).
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { DaemonRequest, DaemonResponse } from './protocol.ts';

/** What the stand-in does with a request. */
export type FakeAnswer = DaemonResponse | { readonly close: true } | { readonly raw: string };

export interface FakeDaemon {
  readonly socketPath: string;
  /** Every request received, in order. */
  readonly requests: readonly DaemonRequest[];
  close(): Promise<void>;
}

/**
 * Listens on `socketPath` until closed.
 *
 * @example
 * const d = await startFakeDaemon(join(dir, 'd.sock'), (req) => ({ ok: true }));
 * // ... spawn the plugin with server_socket = d.socketPath ...
 * expect(d.requests[0]?.command).toBe('DEL');
 * await d.close();
 */
export async function startFakeDaemon(
  socketPath: string,
  answer: (req: DaemonRequest) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeDaemon> {
  const requests: DaemonRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => undefined);
    let buffered = '';
    sock.setEncoding('utf8');
    sock.on('data', async (chunk: string) => {
      buffered += chunk;
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      const req = JSON.parse(buffered.slice(0, nl)) as DaemonRequest;
      buffered = '';
      requests.push(req);
      const a = await answer(req);
      if ('close' in a) sock.destroy();
      else sock.end('raw' in a ? a.raw : `${JSON.stringify(a)}\n`);
    });
  });
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
    },
  };
}

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `cmd` with only `env` (and PATH) in its environment and `stdin` on its
 * standard input, as a runtime runs a plugin; resolves when it ends.
 *
 * @example const r = await runExecutable([plugin], { CNI_COMMAND: 'VERSION' }, '{"cniVersion":"1.0.0"}'); // r.status 0
 */
export function runExecutable(
  cmd: readonly string[],
  env: Readonly<Record<string, string>>,
  stdin: string,
  opts: { readonly cwd?: string } = {},
): Promise<Ran> {
  const [exe, ...args] = cmd;
  if (exe === undefined) return Promise.reject(new Error('runExecutable: no command'));
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
