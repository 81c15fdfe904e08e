/**
 * What the plugin refuses, as data: a CNI error code (SPEC.md "Error"), the
 * input it concerns (`env.CNI_IFNAME`, `config.server_socket`, `daemon`), and
 * the text. Printed as the spec's error body.
 */
import type { CniErrorBody } from './protocol.ts';

export interface CniProblem {
  readonly code: number;
  /** The input the problem is about: `env.<VAR>`, `config.<key>` (dotted), `stdin` or `daemon`. */
  readonly path: string;
  readonly msg: string;
  readonly details?: string;
}

/** Either a value or the problem that stopped it. */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: CniProblem };

/**
 * @example
 * accept('eth0') // {ok: true, value: 'eth0'}
 */
export const accept = <T>(value: T): Checked<T> => ({ ok: true, value });
/**
 * @example
 * refuse({code: 7, path: 'config.name', msg: 'network config has no name'}) // {ok: false, problem: ...}
 */
export const refuse = <T = never>(problem: CniProblem): Checked<T> => ({ ok: false, problem });

/**
 * The spec's error body for a problem, in the version the plugin answers in.
 *
 * @example
 * errorBody({code: 4, path: 'env.CNI_IFNAME', msg: 'CNI_IFNAME is empty'}, '1.0.0')
 * // {cniVersion: '1.0.0', code: 4, msg: 'CNI_IFNAME is empty'}
 */
export function errorBody(problem: CniProblem, cniVersion: string): CniErrorBody {
  return {
    cniVersion,
    code: problem.code,
    msg: problem.msg,
    ...(problem.details !== undefined ? { details: problem.details } : {}),
  };
}
