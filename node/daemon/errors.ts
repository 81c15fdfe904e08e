/** The node daemon's failures, each carrying the CNI error code the plugin hands to the runtime. */
import type { CniErrorBody } from '../cni/protocol.ts';

/**
 * A request the daemon could not serve: `code` is the CNI error code
 * (node/cni/protocol.ts CNI_ERROR), the message names the pod or container
 * and what was missing.
 *
 * @example
 * throw new DaemonError(CNI_ERROR.annotationTimeout, 'pod shop/web-0: ovn.kubernetes.io/routed not "true" within 30000 ms');
 */
export class DaemonError extends Error {
  override readonly name = 'DaemonError';
  constructor(
    readonly code: number,
    message: string,
    readonly details?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The spec's error body. */
  body(cniVersion?: string): CniErrorBody {
    return {
      ...(cniVersion === undefined ? {} : { cniVersion }),
      code: this.code,
      msg: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}
