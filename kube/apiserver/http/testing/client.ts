/**
 * A bare HTTPS client for the HTTP side's tests (before and beside the real
 * clients): one request, its status, headers and JSON body; and a watch
 * stream read line by line.
 */
import { request } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** A parsed reply or watch line: tests read it field by field and assert what they read. */
// biome-ignore lint/suspicious/noExplicitAny: the tests' expectations are the type checks here.
export type Json = any;

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Json;
  readonly text: string;
}

export interface TestClient {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /**
   * One request with the body sent as given (any text); a response without
   * a length (a watch stream) is read until it ends or for `streamMs`.
   */
  raw(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
    streamMs?: number,
  ): Promise<Reply>;
  /** A watch stream: events as they come, and `close()`. */
  watch(path: string, headers?: Record<string, string>): Promise<WatchReader>;
}

export function testClient(url: string, ca: string, token?: string): TestClient {
  const open = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${url}${path}`, {
        method,
        ca,
        headers: {
          ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
          // A length for every body: Node frames a GET or DELETE body by neither length nor chunks otherwise.
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
            : {}),
          ...headers,
        },
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(body);
    });
  return {
    async call(method, path, body, headers = {}) {
      const res = await open(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.statusCode ?? 0, headers: res.headers, body: parsed, text };
    },
    async raw(method, path, body, headers, streamMs = 300) {
      const res = await open(method, path, headers, body);
      const chunks: Buffer[] = [];
      const streaming = res.headers['content-length'] === undefined;
      const stop = streaming ? setTimeout(() => res.destroy(), streamMs) : undefined;
      await new Promise<void>((resolve) => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', resolve);
        res.on('close', resolve);
      });
      clearTimeout(stop);
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.statusCode ?? 0, headers: res.headers, body: parsed, text };
    },
    async watch(path, headers = {}) {
      return new WatchReader(await open('GET', path, headers));
    },
  };
}

/** Lines of a watch stream, parsed; `next()` waits for the next one (undefined once the stream ends). */
export class WatchReader {
  private readonly lines: Json[] = [];
  private waiting: ((v: Json) => void) | undefined;
  private buffer = '';
  ended = false;

  constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      this.buffer += d;
      let i = this.buffer.indexOf('\n');
      while (i >= 0) {
        this.push(JSON.parse(this.buffer.slice(0, i)));
        this.buffer = this.buffer.slice(i + 1);
        i = this.buffer.indexOf('\n');
      }
    });
    res.on('end', () => {
      this.ended = true;
      this.waiting?.(undefined);
      this.waiting = undefined;
    });
  }

  private push(line: unknown): void {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w(line);
    } else this.lines.push(line);
  }

  next(): Promise<Json> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift());
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The next `n` lines. */
  async take(n: number): Promise<Json[]> {
    const out: Json[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next());
    return out;
  }

  close(): void {
    this.res.destroy();
  }
}
