/**
 * The one exception type of the control plane. Starting and stopping real
 * daemons is I/O at the edge, so failures are thrown, each with a `code` a
 * caller can branch on and a message that names the daemon and, when it
 * failed to start, ends with the tail of its log file.
 */

export type ControlPlaneErrorCode =
  | 'binary-missing' // an OVN/OVS executable is not installed
  | 'command-failed' // a one-shot tool (ovsdb-tool, ovn-nbctl, ovn-appctl, ...) exited non-zero
  | 'start-failed' // a daemon did not come up (launcher failed, no pidfile, died)
  | 'not-ready' // a daemon came up but never answered within the bound
  | 'port-in-use' // a TCP listener could not bind its port
  | 'stop-failed' // a pid survived SIGKILL
  | 'no-leader' // a cluster elected no leader within the bound
  | 'trace-failed'; // ovn-trace replied with an error

/**
 * @example
 * try { await startControlPlane() }
 * catch (e) { if (e instanceof ControlPlaneError && e.code === 'binary-missing') skip() }
 */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
  constructor(
    readonly code: ControlPlaneErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
