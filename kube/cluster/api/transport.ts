/**
 * How the API source reaches the API server: JSON requests and watch
 * streams (newline-delimited JSON), behind an interface the source's tests
 * replace with a scripted one.
 *
 * The real one takes the server, CA, client certificate and credentials
 * from `@kubernetes/client-node`'s KubeConfig (a kubeconfig file, or the
 * pod's service account in a cluster), and keeps its own connections: one
 * keep-alive pool for requests, another for watches, which hold their
 * connection for minutes and must not starve the requests, and a small one
 * for the requests that must not wait behind the others (`lane`). (client-node's
 * own request path makes a new agent, so a new TLS connection, per call:
 * thousands of writes a second need reused connections.) Credentials are
 * read again every minute, so a rotated service-account token is picked up.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../runtime/clock.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  readonly method: HttpMethod;
  /** Path and query (`/api/v1/pods?limit=500`). */
  readonly path: string;
  readonly body?: unknown;
  /** Default `application/json`; patches say which kind they are. */
  readonly contentType?: string;
  /**
   * `priority`: sent on connections of its own, never queued behind the
   * others (leader election's Lease renewals: a controller with thousands of
   * writes waiting must still renew within its deadline, as client-go gives
   * the elector a client of its own).
   */
  readonly lane?: 'priority';
}

export interface ApiResponse {
  readonly status: number;
  /** The parsed JSON, or the text when it is not JSON. */
  readonly body: unknown;
}

/** A watch stream once the server said 200; `close` ends it without a call to `onEnd`. */
export interface ApiStream {
  close(): void;
}

export type StreamStart =
  | { readonly ok: true; readonly stream: ApiStream }
  | { readonly ok: false; readonly response: ApiResponse };

export interface Transport {
  request(req: ApiRequest): Promise<ApiResponse>;
  /**
   * A GET whose answer is a stream of JSON documents, one per line: each
   * goes to `onObject`; `onEnd` once the stream ends (with the error when it
   * broke). A non-200 answer resolves with its response instead.
   */
  stream(path: string, onObject: (o: unknown) => void, onEnd: (err?: Error) => void): Promise<StreamStart>;
  /** Ends every connection. */
  close(): void;
}

export interface KubeTransportOptions {
  /** When credentials are read again. */
  readonly clock: Clock;
  /** Connections for requests (default 32). */
  readonly maxSockets?: number;
  /** A request with no answer after this long fails (default 60 s). */
  readonly requestTimeoutMs?: number;
}

const CREDENTIALS_TTL_MS = 60_000;

/** What the kubeconfig gives that is not a connection: the server and the credentials. */
interface Credentials {
  readonly headers: Record<string, string>;
  readonly at: number;
}

/**
 * @example
 * const kc = new KubeConfig(); kc.loadFromFile('k.yaml');
 * const t = await kubeConfigTransport(kc, { clock: realClock });
 * const { status, body } = await t.request({ method: 'GET', path: '/api/v1/namespaces' });
 */
export async function kubeConfigTransport(kc: KubeConfig, opts: KubeTransportOptions): Promise<Transport> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new TransportError('no-cluster', 'the kubeconfig names no current cluster');
  if (cluster.proxyUrl)
    throw new TransportError('unsupported', `cluster ${cluster.name}: proxy-url is not supported by kovn's API source`);
  const server = new URL(cluster.server);
  const tlsOpts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(tlsOpts);
  const secure = server.protocol === 'https:';
  const agentOpts = {
    keepAlive: true,
    ...(tlsOpts.ca !== undefined ? { ca: tlsOpts.ca } : {}),
    ...(tlsOpts.cert !== undefined ? { cert: tlsOpts.cert } : {}),
    ...(tlsOpts.key !== undefined ? { key: tlsOpts.key } : {}),
    ...(tlsOpts.rejectUnauthorized !== undefined ? { rejectUnauthorized: tlsOpts.rejectUnauthorized } : {}),
    ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
  const make = (maxSockets: number) =>
    secure ? new https.Agent({ ...agentOpts, maxSockets }) : new http.Agent({ keepAlive: true, maxSockets });
  const readCredentials = async (): Promise<Credentials> => {
    const o: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(o);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    if (o.auth) headers['Authorization'] = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    return { headers, at: opts.clock.now() };
  };
  return new HttpTransport({
    server,
    module: secure ? https : http,
    requests: make(opts.maxSockets ?? 32),
    priority: make(4),
    watches: make(Number.POSITIVE_INFINITY),
    credentials: readCredentials,
    clock: opts.clock,
    timeoutMs: opts.requestTimeoutMs ?? 60_000,
  });
}

/** The transport could not be made or a connection failed before any answer. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly code: 'no-cluster' | 'unsupported' | 'connection' | 'timeout',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface HttpTransportParts {
  readonly server: URL;
  readonly module: typeof http | typeof https;
  readonly requests: http.Agent;
  readonly priority: http.Agent;
  readonly watches: http.Agent;
  readonly credentials: () => Promise<Credentials>;
  readonly clock: Clock;
  readonly timeoutMs: number;
}

class HttpTransport implements Transport {
  #creds: Promise<Credentials> | undefined;
  readonly #p: HttpTransportParts;
  readonly #prefix: string;

  constructor(parts: HttpTransportParts) {
    this.#p = parts;
    this.#prefix = parts.server.pathname.replace(/\/$/, '');
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    const headers = await this.#headers(req.body === undefined ? undefined : (req.contentType ?? 'application/json'));
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    return new Promise((resolve, reject) => {
      const agent = req.lane === 'priority' ? this.#p.priority : this.#p.requests;
      const r = this.#p.module.request(this.#options(req.method, req.path, headers, agent), (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks).toString()) }));
        res.on('error', (e) => reject(connectionError(req.path, e)));
      });
      r.setTimeout(this.#p.timeoutMs, () =>
        r.destroy(new TransportError('timeout', `${req.method} ${req.path}: no answer in ${this.#p.timeoutMs} ms`)),
      );
      r.on('error', (e) => reject(e instanceof TransportError ? e : connectionError(req.path, e)));
      r.end(payload);
    });
  }

  async stream(path: string, onObject: (o: unknown) => void, onEnd: (err?: Error) => void): Promise<StreamStart> {
    const headers = await this.#headers(undefined);
    return new Promise((resolve, reject) => {
      let closed = false;
      let started = false;
      const r = this.#p.module.request(this.#options('GET', path, headers, this.#p.watches), (res) => {
        started = true;
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              ok: false,
              response: { status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks).toString()) },
            }),
          );
          return;
        }
        resolve({ ok: true, stream: { close: () => void ((closed = true), r.destroy()) } });
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '' && !closed) onObject(parse(line));
        });
        res.on('end', () => {
          if (!closed && rest.trim() !== '') onObject(parse(rest));
          if (!closed) onEnd();
          closed = true;
        });
        res.on('error', (e) => {
          if (!closed) onEnd(connectionError(path, e));
          closed = true;
        });
      });
      r.on('error', (e) => {
        if (closed) return;
        closed = true;
        // Before the answer the start fails; after it, the stream ends (reject is then a no-op).
        if (started) onEnd(connectionError(path, e));
        else reject(connectionError(path, e));
      });
      r.end();
    });
  }

  close(): void {
    this.#p.requests.destroy();
    this.#p.priority.destroy();
    this.#p.watches.destroy();
  }

  #options(method: string, path: string, headers: Record<string, string>, agent: http.Agent): http.RequestOptions {
    const s = this.#p.server;
    return {
      method,
      host: s.hostname.replace(/^\[|\]$/g, ''),
      port: s.port,
      path: this.#prefix + path,
      headers,
      agent,
    };
  }

  async #headers(contentType: string | undefined): Promise<Record<string, string>> {
    let creds = this.#creds;
    if (creds === undefined || this.#p.clock.now() - (await creds).at >= CREDENTIALS_TTL_MS) {
      creds = this.#creds = this.#p.credentials();
    }
    return {
      ...(await creds).headers,
      Accept: 'application/json',
      'User-Agent': 'kovn',
      ...(contentType !== undefined ? { 'Content-Type': contentType } : {}),
    };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function connectionError(path: string, cause: Error): TransportError {
  return new TransportError('connection', `${path}: ${cause.message}`, { cause });
}
