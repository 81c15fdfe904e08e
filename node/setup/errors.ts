/** Failures of the node's set-up: its OVS settings, ovn0, and a pod's attachment under a datapath profile. */

export type SetupErrorCode =
  /** A profile name that is none of system, netdev, dpdk, hw-offload. */
  | 'unknown-profile'
  /** The Node has no usable join-port annotations yet (the controller has not allocated them). */
  | 'no-node-network'
  /** A pod asks for a port the node's profile cannot give (vhost-user off DPDK, a VF off hw-offload). */
  | 'profile-mismatch'
  /** The pod's annotations give no address, or one that does not parse. */
  | 'no-pod-network'
  /** The VF, its PF, its index or its representor could not be found in sysfs. */
  | 'sriov'
  /** The Netlink implementation lacks a request this attachment needs (an optional method). */
  | 'netlink-unsupported';

/**
 * @example
 * try { planNodeNic(input); }
 * catch (e) { if (e instanceof SetupError && e.code === 'no-node-network') ... }
 */
export class SetupError extends Error {
  override readonly name = 'SetupError';
  constructor(
    readonly code: SetupErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Why a pure step (a plan or a decision) gave no result: data, not an exception. */
export interface SetupIssue {
  readonly code: SetupErrorCode;
  /** Where the cause lies, e.g. `metadata.annotations[ovn.kubernetes.io/ip_address]` or `profile`. */
  readonly path: string;
  readonly message: string;
}

export type Planned<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issue: SetupIssue };

/**
 * The issue as an exception, for the I/O edge that cannot go on without the plan.
 *
 * @example
 * const plan = planNodeNic(input);
 * if (!plan.ok) throw issueError(plan.issue); // SetupError no-node-network 'metadata.annotations[...]: ...'
 */
export function issueError(issue: SetupIssue): SetupError {
  return new SetupError(issue.code, `${issue.path}: ${issue.message}`);
}
