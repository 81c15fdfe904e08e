/**
 * Loopback TCP ports. ovsdb-server client remotes use `ptcp:0:127.0.0.1` and
 * read the port the kernel chose from the log, which cannot race. Raft
 * addresses are written into the database file before the server starts, so
 * they need a port chosen in advance: bind port 0, note the port, release it,
 * and let the caller retry when the daemon then reports the port in use.
 */
import { createServer } from 'node:net';

/** Only ever loopback: tests must not listen on or reach other addresses. */
export const LOOPBACK = '127.0.0.1';

/**
 * A loopback port that was free a moment ago.
 *
 * @example
 * const port = await freePort(); // e.g. 41733
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('bind to port 0 returned no port'))));
    });
  });
}

/** `n` distinct free loopback ports. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/**
 * The port ovsdb-server chose for `ptcp:0:127.0.0.1`, from its console or
 * log text ("|socket_util|INFO|0:127.0.0.1: listening on port 39011").
 */
export function parseChosenPort(text: string): number | undefined {
  const m = /\|0:127\.0\.0\.1: listening on port (\d+)/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** True when the log text reports that a listener on `port` could not bind. */
export function reportsPortInUse(text: string, port: number): boolean {
  const escaped = String(port);
  return new RegExp(`ptcp:${escaped}:127\\.0\\.0\\.1: listen failed`).test(text);
}
