/**
 * The daemon's unix socket (node/cni/protocol.ts): one connection per
 * request, the request as one JSON line, the response as one JSON line,
 * then the daemon closes. The socket file is mode 0600 (root's plugin
 * only); a socket left by a daemon that died is replaced, one that
 * answers (another daemon running) is not.
 */
import { chmod, lstat, mkdir, unlink } from 'node:fs/promises';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { dirname } from 'node:path';
import { CNI_ERROR, type DaemonCommand, type DaemonRequest, type DaemonResponse } from '../cni/protocol.ts';

/** A request line longer than this is refused (a config with a large prevResult stays far below). */
const MAX_REQUEST_BYTES = 1 << 20;
const COMMANDS: readonly DaemonCommand[] = ['ADD', 'DEL', 'CHECK', 'STATUS', 'GC'];

export type ServerErrorCode = 'in-use' | 'not-socket' | 'listen';

export class DaemonServerError extends Error {
  override readonly name = 'DaemonServerError';
  constructor(
    readonly code: ServerErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface DaemonServer {
  readonly path: string;
  /** Stops accepting, waits for the requests being served, removes the socket file. */
  close(): Promise<void>;
}

/** The request line decoded, or why it cannot be: the spec's decode failure. */
export function decodeRequest(line: string): { ok: true; req: DaemonRequest } | { ok: false; msg: string } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { ok: false, msg: `request: not JSON (${(e as Error).message})` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, msg: 'request: not a JSON object' };
  const r = v as Record<string, unknown>;
  if (!COMMANDS.includes(r.command as DaemonCommand))
    return { ok: false, msg: `request.command: ${JSON.stringify(r.command)} is not one of ${COMMANDS.join(', ')}` };
  const strings = ['cniVersion', 'containerId', 'netns', 'ifName', 'podName', 'podNamespace', 'provider', 'network'];
  for (const f of [...strings, 'deviceId', 'vhostUserSocketVolumeName', 'vhostUserSocketName'])
    if (r[f] !== undefined && typeof r[f] !== 'string') return { ok: false, msg: `request.${f}: not a string` };
  const s = (f: string, d = '') => (typeof r[f] === 'string' ? (r[f] as string) : d);
  return {
    ok: true,
    req: {
      ...(r as unknown as DaemonRequest),
      cniVersion: s('cniVersion', '1.0.0'),
      network: s('network'),
      containerId: s('containerId'),
      netns: s('netns'),
      ifName: s('ifName'),
      podName: s('podName'),
      podNamespace: s('podNamespace'),
      provider: s('provider', 'ovn'),
    },
  };
}

async function removeStaleSocket(path: string): Promise<void> {
  const st = await lstat(path).catch(() => undefined);
  if (st === undefined) return;
  if (!st.isSocket()) throw new DaemonServerError('not-socket', `socket ${path}: exists and is not a socket`);
  const answers = await new Promise<boolean>((resolve) => {
    const c = connect(path);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
  if (answers) throw new DaemonServerError('in-use', `socket ${path}: another daemon is listening on it`);
  await unlink(path);
}

function serveConnection(
  sock: Socket,
  handle: (req: DaemonRequest) => Promise<DaemonResponse>,
  idle: Set<Socket>,
): Promise<void> {
  idle.add(sock);
  return new Promise((resolve) => {
    let buf = '';
    let done = false;
    const reply = (res: DaemonResponse) => {
      sock.end(`${JSON.stringify(res)}\n`);
      resolve();
    };
    const fail = (msg: string, code: number = CNI_ERROR.decodeFailure) => reply({ ok: false, error: { code, msg } });
    sock.setEncoding('utf8');
    sock.on('error', () => resolve());
    sock.on('close', () => {
      idle.delete(sock);
      resolve();
    });
    sock.on('data', (chunk: string) => {
      if (done) return;
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0 && buf.length <= MAX_REQUEST_BYTES) return;
      done = true;
      idle.delete(sock);
      if (nl < 0) return fail(`request: longer than ${MAX_REQUEST_BYTES} bytes`);
      const d = decodeRequest(buf.slice(0, nl));
      if (!d.ok) return fail(d.msg);
      handle(d.req).then(reply, (e) => fail(`daemon: ${String(e)}`, CNI_ERROR.ioFailure));
    });
    sock.on('end', () => {
      if (!done) {
        done = true;
        fail('request: connection closed before a whole line');
      }
    });
  });
}

/**
 * @example
 * const server = await listenDaemon('/run/kovn/daemon.sock', (req) => agent.handle(req));
 * await server.close();
 */
export async function listenDaemon(
  path: string,
  handle: (req: DaemonRequest) => Promise<DaemonResponse>,
): Promise<DaemonServer> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await removeStaleSocket(path);
  const serving = new Set<Promise<void>>();
  /** Connections that have not sent their request line: closing the server ends them. */
  const idle = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (sock) => {
    const p = serveConnection(sock, handle, idle);
    serving.add(p);
    void p.then(() => serving.delete(p));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new DaemonServerError('listen', `socket ${path}: ${e.message}`, { cause: e })));
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return {
    path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of idle) s.destroy();
      await closed;
      await Promise.all([...serving]);
      await unlink(path).catch(() => {});
    },
  };
}
