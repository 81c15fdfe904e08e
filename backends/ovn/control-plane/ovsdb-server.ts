/**
 * ovsdb-server on a database file in a temp dir, listening on a unix socket
 * and optionally on a loopback TCP port; restartable on the same file and
 * remotes (the fault tests kill it mid-write and start it again).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { ControlPlaneError } from './errors.ts';
import { DaemonHandle, DaemonProcess, checkSocketPath, type ProcessHandle } from './daemon.ts';
import { pollUntil, runTool } from './exec.ts';
import { LOOPBACK, parseChosenPort, reportsPortInUse } from './ports.ts';

export const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
export const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';
export const VSWITCH_SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

export interface OvsdbServer extends ProcessHandle {
  /** The database file. */
  readonly db: string;
  /** The unix socket clients connect to. */
  readonly socket: string;
  /** `unix:<socket>`. */
  readonly remote: string;
  /** `tcp:127.0.0.1:<port>` when started with a TCP port. */
  readonly tcpRemote?: string;
  /** Starts again on the same db file and remotes (stops it first if it runs). */
  restart(): Promise<void>;
}

export interface OvsdbServerInit {
  readonly dir: string;
  readonly name: string;
  /** Database file (already created). */
  readonly db: string;
  /** Client TCP port; 0 = let the kernel choose at first start; undefined = unix socket only. */
  readonly tcpPort?: number;
  /** For a clustered database: its name; readiness then waits until it joined its cluster. */
  readonly clusterDbName?: string;
  /** For a clustered database: the raft port, checked for bind failures. */
  readonly raftPort?: number;
  readonly readyTimeoutMs?: number;
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The ovsdb-server implementation shared by standalone servers and cluster members. */
export class OvsdbServerProcess extends DaemonHandle implements OvsdbServer {
  readonly db: string;
  readonly socket: string;
  readonly remote: string;
  #tcpPort: number | undefined;

  constructor(readonly init: OvsdbServerInit) {
    super(new DaemonProcess({ dir: init.dir, name: init.name, binary: 'ovsdb-server', args: [] }));
    this.db = init.db;
    this.socket = `${init.dir}/${init.name}.sock`;
    this.remote = `unix:${this.socket}`;
    this.#tcpPort = init.tcpPort;
    checkSocketPath(this.socket, `ovsdb-server ${init.name}`);
  }

  get tcpPort(): number | undefined {
    return this.#tcpPort;
  }
  get tcpRemote(): string | undefined {
    return this.#tcpPort === undefined ? undefined : `tcp:${LOOPBACK}:${this.#tcpPort}`;
  }

  /** Starts the server and waits until it answers on every remote. */
  async start(): Promise<void> {
    const remotes = [`--remote=punix:${this.socket}`];
    if (this.#tcpPort !== undefined) remotes.push(`--remote=ptcp:${this.#tcpPort}:${LOOPBACK}`);
    const logOffset = sizeOf(this.logFile);
    await this.daemon.start([...remotes, this.db]);
    try {
      await this.#answers(this.remote);
      // Client remotes are bound before the server first answers, so the log
      // already says which port ptcp:0 got, or that a fixed port is taken.
      const newLog = readFrom(this.logFile, logOffset);
      if (this.#tcpPort === 0) {
        const chosen = parseChosenPort(newLog);
        if (chosen === undefined) throw this.daemon.startError('no "listening on port" log line for ptcp:0');
        this.#tcpPort = chosen;
      }
      this.#checkPort(this.#tcpPort, newLog);
      if (this.tcpRemote !== undefined) await this.#answers(this.tcpRemote);
      await this.#joined();
      // Raft binds in the main loop, so its failure shows only once the server is up.
      this.#checkPort(this.init.raftPort, readFrom(this.logFile, logOffset));
    } catch (e) {
      await this.daemon.kill();
      throw e;
    }
  }

  #checkPort(port: number | undefined, newLog: string): void {
    if (port !== undefined && port !== 0 && reportsPortInUse(newLog, port)) {
      throw new ControlPlaneError('port-in-use', `ovsdb-server ${this.name}: ${LOOPBACK}:${port} is in use`);
    }
  }

  async #answers(remote: string): Promise<void> {
    await pollUntil(async () => (await runTool('ovsdb-client', ['--timeout=5', 'list-dbs', remote])).stdout, {
      timeoutMs: this.init.readyTimeoutMs ?? 30_000,
      abort: () => (this.daemon.running ? undefined : this.daemon.startError('exited while starting')),
      onTimeout: (e) => this.#notReady(`no answer to list-dbs on ${remote}`, e),
    });
  }

  /** For a clustered database: until it has joined and connected to its cluster. */
  async #joined(): Promise<void> {
    const dbName = this.init.clusterDbName;
    if (dbName === undefined) return;
    const timeoutMs = this.init.readyTimeoutMs ?? 30_000;
    const secs = Math.ceil(timeoutMs / 1000);
    try {
      await runTool('ovsdb-client', [`--timeout=${secs}`, 'wait', this.remote, dbName, 'connected'], {
        timeoutMs: timeoutMs + 5_000,
      });
    } catch (e) {
      throw this.#notReady(`${dbName} never joined/connected to its cluster`, e);
    }
  }

  #notReady(what: string, cause: unknown): ControlPlaneError {
    const detail = cause instanceof Error ? ` (last error: ${cause.message})` : '';
    return this.daemon.startError(`${what}${detail}`, 'not-ready');
  }

  async restart(): Promise<void> {
    if (this.daemon.running) await this.daemon.stop();
    await this.start();
  }

  stop(): Promise<void> {
    return this.daemon.stop();
  }

  kill(signal?: NodeJS.Signals): Promise<void> {
    return this.daemon.kill(signal);
  }
}

/**
 * Creates `<dir>/<name>.db` from `schema` (unless it exists) and starts
 * ovsdb-server on it.
 *
 * @example
 * const nb = await startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA, tcpPort: 0 });
 * // nb.remote === `unix:${dir}/nb.sock`, nb.tcpRemote === 'tcp:127.0.0.1:40123'
 * await nb.stop();
 */
export async function startOvsdbServer(opts: {
  dir: string;
  name: string;
  schema: string;
  tcpPort?: number;
}): Promise<OvsdbServer> {
  const db = `${opts.dir}/${opts.name}.db`;
  if (!existsSync(db)) await runTool('ovsdb-tool', ['create', db, opts.schema], { dir: opts.dir });
  const init: OvsdbServerInit = { dir: opts.dir, name: opts.name, db };
  const server = new OvsdbServerProcess(opts.tcpPort === undefined ? init : { ...init, tcpPort: opts.tcpPort });
  await server.start();
  return server;
}
