/**
 * The local OVN control plane: NB and SB ovsdb-servers and ovn-northd in one
 * temp dir. What tests, `kovn --backend ovn`, the benchmarks and the
 * differential test run against.
 */
import { DaemonProcess, type ProcessHandle } from './daemon.ts';
import type { ControlPlaneError } from './errors.ts';
import { pollUntil, runTool } from './exec.ts';
import { NB_SCHEMA, SB_SCHEMA, startOvsdbServer, type OvsdbServer } from './ovsdb-server.ts';
import { makeTempDir, removeTempDir } from './run-dir.ts';

export interface ControlPlane {
  readonly dir: string;
  readonly nb: OvsdbServer;
  readonly sb: OvsdbServer;
  /** Absent when started with `northd: false`. */
  readonly northd?: ProcessHandle;
  /** Stops every daemon (northd first); removes the dir if this call created it. */
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Use this directory (kept on stop); default: a fresh temp dir (removed on stop unless KOVN_KEEP_TMP=1). */
  dir?: string;
  /** Start ovn-northd; default true. */
  northd?: boolean;
  /** Also listen on loopback TCP (ports chosen by the kernel); default false. */
  tcp?: boolean;
}

/** Stops what did start when a later step fails, so a failed start leaks nothing. */
async function stopAll(handles: readonly (ProcessHandle | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(handles.map((h) => h?.stop()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function startNorthd(dir: string, nb: OvsdbServer, sb: OvsdbServer): Promise<DaemonProcess> {
  const northd = new DaemonProcess({
    dir,
    name: 'northd',
    binary: 'ovn-northd',
    args: [`--ovnnb-db=${nb.remote}`, `--ovnsb-db=${sb.remote}`],
  });
  await northd.start();
  try {
    // "active" once it holds the SB lock and will process NB changes.
    await pollUntil(
      async () => {
        const { stdout } = await runTool('ovn-appctl', ['-t', northd.ctl, 'status'], { timeoutMs: 5_000 });
        return stdout.includes('Status: active') ? true : undefined;
      },
      {
        timeoutMs: 30_000,
        abort: () => (northd.running ? undefined : northd.startError('exited while starting')),
        onTimeout: (e) => notActive(northd, e),
      },
    );
  } catch (e) {
    await northd.kill();
    throw e;
  }
  return northd;
}

function notActive(northd: DaemonProcess, cause: unknown): ControlPlaneError {
  const detail = cause instanceof Error ? ` (last error: ${cause.message})` : '';
  return northd.startError(`never reported "Status: active"${detail}`, 'not-ready');
}

/**
 * Starts NB and SB ovsdb-servers (unix sockets, optionally TCP) and
 * ovn-northd between them, each stopped by pid.
 *
 * @example
 * const cp = await startControlPlane();
 * try {
 *   await runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, '--wait=sb', 'ls-add', 'sw0']);
 * } finally {
 *   await cp.stop();
 * }
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? (await makeTempDir('cp'));
  try {
    return await startIn(dir, ownDir, opts);
  } catch (e) {
    // A failed start leaves nothing: its daemons were stopped, its dir goes.
    if (ownDir) await removeTempDir(dir);
    throw e;
  }
}

async function startIn(dir: string, ownDir: boolean, opts: ControlPlaneOptions): Promise<ControlPlane> {
  const tcp = opts.tcp === true ? { tcpPort: 0 } : {};
  const started = await Promise.allSettled([
    startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA, ...tcp }),
    startOvsdbServer({ dir, name: 'sb', schema: SB_SCHEMA, ...tcp }),
  ]);
  const [nbResult, sbResult] = started;
  if (nbResult?.status !== 'fulfilled' || sbResult?.status !== 'fulfilled') {
    await stopAll(started.map((r) => (r.status === 'fulfilled' ? r.value : undefined)));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    throw failed?.reason;
  }
  const nb = nbResult.value;
  const sb = sbResult.value;
  let northd: DaemonProcess | undefined;
  if (opts.northd !== false) {
    try {
      northd = await startNorthd(dir, nb, sb);
    } catch (e) {
      await stopAll([nb, sb]);
      throw e;
    }
  }
  return {
    dir,
    nb,
    sb,
    ...(northd === undefined ? {} : { northd }),
    async stop() {
      try {
        // northd first, so it does not log reconnect storms against dying servers.
        await northd?.stop();
      } finally {
        await stopAll([nb, sb]);
      }
      if (ownDir) await removeTempDir(dir);
    },
  };
}
