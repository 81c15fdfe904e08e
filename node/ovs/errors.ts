/** Failures of the node agent's OVS plumbing. */

export type OvsErrorCode =
  /** The bridge named by a port does not exist. */
  | 'no-bridge'
  /** The database has no Open_vSwitch root row (`ovs-vsctl init` or ovs-ctl never ran). */
  | 'no-root'
  /** A port or interface of that name exists and is not the one asked for. */
  | 'exists'
  /** ovs-vswitchd did not apply a change (cur_cfg) within the bound. */
  | 'not-applied'
  /** ovn-controller did not mark an interface ovn-installed within the bound. */
  | 'not-installed';

/**
 * @example
 * try { await addPort(vs, { name: 'v0', bridge: 'br-x' }); }
 * catch (e) { if (e instanceof OvsError && e.code === 'no-bridge') ... }
 */
export class OvsError extends Error {
  override readonly name = 'OvsError';
  constructor(
    readonly code: OvsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
