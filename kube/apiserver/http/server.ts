/**
 * The HTTPS listener of the API front: the handler (handler.ts) behind a
 * TLS server on loopback. `close` ends open watches too, so a stopping
 * `kovn sim serve` never waits on a client that keeps its stream.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ApiHandler, type ApiHandlerOptions } from './handler.ts';
import type { TlsIdentity } from './tls.ts';

/** The listener could not start. */
export class ApiServerError extends Error {
  override readonly name = 'ApiServerError';
  constructor(
    readonly code: 'ListenFailed',
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ApiServerOptions extends ApiHandlerOptions {
  readonly tls: TlsIdentity;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
}

export interface ApiServer {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly handler: ApiHandler;
  close(): Promise<void>;
}

/**
 * @example
 * const api = await startApiServer({ cluster, description, clock: realClock, random: Math.random, tls, token });
 * // kubectl --server api.url ...
 * await api.close();
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const handler = new ApiHandler(opts);
  const server: Server = createServer({ key: opts.tls.key, cert: opts.tls.cert }, (req, res) =>
    handler.handle(req, res),
  );
  const host = opts.host ?? '127.0.0.1';
  const port0 = opts.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the address is in use (port 0 picks a free one)' : err.message;
      reject(new ApiServerError('ListenFailed', `listening on ${host}:${port0}: ${why}`, { cause: err }));
    };
    server.once('error', failed);
    server.listen(port0, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `https://${shownHost}:${port}`,
    port,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
