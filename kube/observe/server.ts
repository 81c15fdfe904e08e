/**
 * The observability endpoint of the controller and daemon processes (what
 * Kube-OVN's metrics server answers on its metrics port): `GET /metrics` in
 * the Prometheus text format, `GET /healthz` (the process is alive and
 * working: a liveness probe restarts it otherwise) and `GET /readyz` (it
 * does its job now: for the controller, it leads and has started). Each
 * check answers 200 `ok`, or 503 with the reason it gives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A check's answer: undefined when fine, else why not (one line). */
export type Check = () => string | undefined;

export interface ObserveServerOptions {
  readonly registry: Registry;
  /** `127.0.0.1`, `0.0.0.0`, `::`. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly healthz?: Check;
  readonly readyz?: Check;
}

export interface ObserveServer {
  /** `host:port` it listens on. */
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A `--metrics-addr` could not be used. */
export class ObserveServerError extends Error {
  override readonly name = 'ObserveServerError';
  constructor(
    readonly code: 'bad-address' | 'listen',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * `host:port` (`[::]:10660` for IPv6, `:10660` for every address) to its parts.
 *
 * @example parseListenAddress(':10660') // { host: '0.0.0.0', port: 10660 }
 */
export function parseListenAddress(s: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  const port = Number(m?.[3]);
  if (m === null || !(port >= 0 && port <= 65535))
    throw new ObserveServerError('bad-address', `--metrics-addr: ${JSON.stringify(s)} is not host:port`);
  return { host: m[1] ?? (m[2] === '' ? '0.0.0.0' : m[2]!), port };
}

/**
 * @example
 * const s = await startObserveServer({ registry, host: '0.0.0.0', port: 10660, readyz: () => leading ? undefined : 'not leading' });
 */
export async function startObserveServer(o: ObserveServerOptions): Promise<ObserveServer> {
  const checks: Record<string, Check | undefined> = { '/healthz': o.healthz, '/readyz': o.readyz, '/livez': o.healthz };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      o.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': o.registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(err)}\n`),
      );
      return;
    }
    if (path in checks) {
      const why = checks[path]?.();
      if (why === undefined) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'content-type': 'text/plain' }).end(`${why}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new ObserveServerError('listen', `metrics ${o.host}:${o.port}: ${e.message}`, { cause: e })),
    );
    server.listen(o.port, o.host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    address: a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`,
    port: a.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
