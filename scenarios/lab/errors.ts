/** The lab's exceptions: what could not be set up or asked, naming the object. */
export type LabErrorCode = 'command-failed' | 'agent-failed' | 'not-root' | 'wiring-failed' | 'not-installed';

/**
 * @example throw new LabError('wiring-failed', 'CNI ADD of pod default/a: code 100: ...')
 */
export class LabError extends Error {
  override readonly name = 'LabError';
  constructor(
    readonly code: LabErrorCode,
    message: string,
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
  }
}
