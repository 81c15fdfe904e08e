/**
 * A stand-in daemon for the plugin's tests: a unix-socket server speaking
 * protocol.ts (one JSON line each way per connection) that records each
 * request and answers what the test says, including the broken answers a
 * real daemon might give (closing without a line, a line that is not JSON).
 */
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
