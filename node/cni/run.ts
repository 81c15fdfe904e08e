/**
 * The plugin as a process: reads the real environment and stdin, calls the
 * daemon over its unix socket, prints, and sets the exit status. Shared by the
 * bundled executable (node/cni/main.ts) and `kovn cni`.
 */
import { readFileSync } from 'node:fs';
import { callDaemon } from './client.ts';
import { type PluginOutcome, runPlugin } from './plugin.ts';
import { CURRENT_CNI_VERSION } from './version.ts';

/** libcni's code for a plugin's internal error. */
const INTERNAL = 999;

/** How long the plugin waits for the daemon; the daemon's own bounds (annotation wait, ovn-installed) are shorter. */
export const DAEMON_CALL_TIMEOUT_MS = 300_000;

/**
 * Reads stdin whole. A terminal gives '' (VERSION typed by hand does not wait
 * for an end of file that never comes); a non-blocking pipe (EAGAIN) is read
 * as a stream.
 *
 * @example
 * const config = await readProcessStdin(); // '{"cniVersion":"1.0.0",...}'
 */
export async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs the plugin on this process's environment and stdio; resolves to the
 * outcome after printing it and setting process.exitCode.
 *
 * @example
 * await runCniProcess(); // CNI_COMMAND=VERSION ... prints {"cniVersion":..,"supportedVersions":[..]}
 */
export async function runCniProcess(): Promise<PluginOutcome> {
  let out: PluginOutcome;
  try {
    out = await runPlugin({
      env: process.env,
      readStdin: readProcessStdin,
      call: (socket, request) => callDaemon(socket, request, { signal: AbortSignal.timeout(DAEMON_CALL_TIMEOUT_MS) }),
    });
  } catch (e) {
    // A defect of the plugin still answers in the spec's error format (libcni's ErrInternal), never a bare stack.
    const msg = `kovn-cni failed: ${e instanceof Error ? e.message : String(e)}`;
    out = {
      exitCode: 1,
      stdout: `${JSON.stringify({ cniVersion: CURRENT_CNI_VERSION, code: INTERNAL, msg })}\n`,
      stderr: `${msg}\n`,
    };
  }
  if (out.stderr) process.stderr.write(out.stderr);
  if (out.stdout) process.stdout.write(out.stdout);
  process.exitCode = out.exitCode;
  return out;
}
