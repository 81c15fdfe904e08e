/**
 * TCP measured between two network namespaces by tcp-agent.mjs: a bulk
 * transfer, measured by the receiver (how the QoS test sees a rate limit
 * with real traffic; the rate excludes the first `warmupSeconds` after the
 * first byte, where a policer's or shaper's burst allowance passes at line
 * rate), and connect latency (the CNI bench's pod-to-pod figure).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RuntimeError } from './errors.ts';

const AGENT = fileURLToPath(new URL('./tcp-agent.mjs', import.meta.url));

export interface TransferOptions {
  /** The receiver's namespace (a name under /run/netns) and the port it listens on. */
  readonly server: { readonly netns: string; readonly port: number };
  /** The sender's namespace and the receiver's address as the sender reaches it. */
  readonly client: { readonly netns: string; readonly host: string };
  /** How long the sender writes; default 4. */
  readonly seconds?: number;
  /** Default 1. */
  readonly warmupSeconds?: number;
}

export interface TransferResult {
  readonly bytes: number;
  readonly seconds: number;
  readonly measuredBytes: number;
  readonly measuredSeconds: number;
  /** Over the measured window. */
  readonly bitsPerSecond: number;
}

interface Agent {
  readonly lines: AsyncIterator<string>;
  readonly done: Promise<{ code: number | null; stderr: string }>;
  kill(): void;
  /** Ends its stdin (a listener then exits). */
  end(): void;
}

function startAgent(netns: string, args: readonly string[], timeoutMs: number): Agent {
  const child = spawn('ip', ['netns', 'exec', netns, process.execPath, AGENT, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { lines: lineIterator(child.stdout), done, kill: () => child.kill('SIGKILL'), end: () => child.stdin.end() };
}

async function* lines(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  let buf = '';
  for await (const chunk of stream) {
    buf += String(chunk);
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      nl = buf.indexOf('\n');
    }
  }
  if (buf !== '') yield buf;
}

const lineIterator = (s: NodeJS.ReadableStream): AsyncIterator<string> => lines(s)[Symbol.asyncIterator]();

async function nextLine(a: Agent, what: string): Promise<string> {
  const r = await a.lines.next();
  if (r.done === true) {
    const { code, stderr } = await a.done;
    throw new RuntimeError('transfer-failed', `${what}: the agent ended (exit ${String(code)}) ${stderr.trim()}`);
  }
  return r.value;
}

/**
 * Starts the receiver, then the sender, and returns what the receiver measured.
 *
 * @example
 * const r = await measureTransfer({ server: { netns: 'kq-a-1', port: 5201 }, client: { netns: 'kq-a-0', host: '10.16.0.3' } });
 * r.bitsPerSecond // 19.1e6 under a 20 Mbit/s limit
 */
export async function measureTransfer(o: TransferOptions): Promise<TransferResult> {
  const seconds = o.seconds ?? 4;
  const warmup = o.warmupSeconds ?? 1;
  // The sender's socket buffer drains after it stops writing: allow for it at a low rate.
  const bound = (seconds + 30) * 1000;
  const where = `transfer ${o.client.netns} -> ${o.server.netns} ${o.client.host}:${o.server.port}`;
  const server = startAgent(o.server.netns, ['serve', String(o.server.port), String(warmup)], bound);
  const first = await nextLine(server, `${where}: receiver`);
  if (first !== 'listening') throw new RuntimeError('transfer-failed', `${where}: receiver said ${first}`);
  const client = startAgent(o.client.netns, ['send', o.client.host, String(o.server.port), String(seconds)], bound);
  const sent = await client.done;
  if (sent.code !== 0) {
    server.kill();
    throw new RuntimeError('transfer-failed', `${where}: sender exit ${String(sent.code)}: ${sent.stderr.trim()}`);
  }
  const report = await nextLine(server, `${where}: receiver`);
  await server.done;
  try {
    return JSON.parse(report) as TransferResult;
  } catch (e) {
    throw new RuntimeError('transfer-failed', `${where}: receiver said ${report}`, { cause: e });
  }
}

export interface ConnectOptions {
  readonly server: { readonly netns: string; readonly port: number };
  readonly client: { readonly netns: string; readonly host: string };
  /** Connections, one after another; default 20. */
  readonly count?: number;
}

/**
 * Milliseconds from connect() to the completed handshake, per connection,
 * from a client namespace to a listener in a server namespace.
 *
 * @example
 * const ms = await measureConnects({ server: { netns: 'kb-1', port: 5300 }, client: { netns: 'kb-0', host: '10.16.0.3' } });
 */
export async function measureConnects(o: ConnectOptions): Promise<number[]> {
  const count = o.count ?? 20;
  const where = `connect ${o.client.netns} -> ${o.server.netns} ${o.client.host}:${o.server.port}`;
  const server = startAgent(o.server.netns, ['listen', String(o.server.port)], 120_000);
  try {
    const first = await nextLine(server, `${where}: listener`);
    if (first !== 'listening') throw new RuntimeError('transfer-failed', `${where}: listener said ${first}`);
    const client = startAgent(o.client.netns, ['connect', o.client.host, String(o.server.port), String(count)], 60_000);
    const line = await nextLine(client, `${where}: client`);
    await client.done;
    return (JSON.parse(line) as { connectMs: number[] }).connectMs;
  } finally {
    server.end();
    await server.done;
  }
}
