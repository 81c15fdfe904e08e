/**
 * A scripted transport for the API source's tests: requests are answered by
 * the test's function, watch streams are opened as the test says (refused
 * with a response, or open) and fed and ended by the test.
 */
import type { ApiRequest, ApiResponse, StreamStart, Transport } from '../transport.ts';

export interface FakeStream {
  readonly path: string;
  readonly query: URLSearchParams;
  push(o: unknown): void;
  end(err?: Error): void;
  closed: boolean;
}

export class FakeTransport implements Transport {
  readonly requests: ApiRequest[] = [];
  readonly streams: FakeStream[] = [];
  /** How the next stream starts: undefined opens it; a response refuses it; an Error fails the connection. */
  nextStart: (ApiResponse | Error | undefined)[] = [];

  constructor(private readonly answer: (req: ApiRequest) => ApiResponse = () => ({ status: 404, body: {} })) {}

  async request(req: ApiRequest): Promise<ApiResponse> {
    this.requests.push(req);
    return this.answer(req);
  }

  async stream(path: string, onObject: (o: unknown) => void, onEnd: (err?: Error) => void): Promise<StreamStart> {
    const how = this.nextStart.shift();
    const [p, q] = path.split('?');
    const s: FakeStream = {
      path: p ?? '',
      query: new URLSearchParams(q ?? ''),
      closed: false,
      push: (o) => {
        if (!s.closed) onObject(o);
      },
      end: (err) => {
        if (s.closed) return;
        s.closed = true;
        onEnd(err);
      },
    };
    this.streams.push(s);
    if (how instanceof Error) {
      s.closed = true;
      throw how;
    }
    if (how !== undefined) {
      s.closed = true;
      return { ok: false, response: how };
    }
    return { ok: true, stream: { close: () => void (s.closed = true) } };
  }

  close(): void {}
}

export const status = (code: number, reason: string, message = reason): ApiResponse => ({
  status: code,
  body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message },
});
