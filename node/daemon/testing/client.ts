/** A minimal client of the daemon's socket for tests: one request line out, one response line back. */
import { connect } from 'node:net';
import type { DaemonRequest, DaemonResponse } from '../../cni/protocol.ts';

/** Sends `line` as is (a request or garbage) and resolves with the raw answer. */
export function sendLine(path: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(path);
    let buf = '';
    c.setEncoding('utf8');
    c.on('data', (d: string) => {
      buf += d;
    });
    c.on('end', () => resolve(buf));
    c.on('error', reject);
    // Half-closed after the line, as a client that sends a truncated request and waits would be.
    c.end(line);
  });
}

export async function call(path: string, req: DaemonRequest): Promise<DaemonResponse> {
  return JSON.parse(await sendLine(path, `${JSON.stringify(req)}\n`)) as DaemonResponse;
}
