/**
 * A Duplex standing in for a socket in RPC tests: what the client writes is
 * parsed into `sent`; `deliver` plays bytes or messages from the "server".
 * Test-only code.
 */
import { Duplex } from 'node:stream';
import { JsonSplitter } from '../framing.ts';

export class FakeStream extends Duplex {
  readonly sent: Record<string, unknown>[] = [];
  private readonly splitter = new JsonSplitter();
  private readonly waiters: (() => void)[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    for (const v of this.splitter.push(chunk)) this.sent.push(v as Record<string, unknown>);
    for (const w of this.waiters.splice(0)) w();
    cb();
  }

  override _read(): void {}

  /** Sends a message (object) or raw text to the client. */
  deliver(msg: unknown): void {
    this.push(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** The peer hangs up. */
  hangUp(): void {
    this.push(null);
  }

  /** Resolves when the client has written at least `n` messages. */
  async waitSent(n: number): Promise<void> {
    while (this.sent.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
}

/** Lets pending stream events and promise callbacks run. */
export function flush(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}
