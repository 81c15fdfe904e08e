export type RuntimeErrorCode =
  /** A podman command failed or timed out. */
  | 'podman-failed'
  /** A tool this module runs (ip, tc, tar, the transfer agent) failed. */
  | 'tool-failed'
  /** A transfer agent said nothing parseable or ended early. */
  | 'transfer-failed';

/** A failure of the real-runtime harness (podman, network namespaces, the transfer agent). */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
