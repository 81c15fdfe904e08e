/**
 * CNI spec versions: which the plugin speaks, and the version floors of the
 * commands (SPEC.md: CHECK came with 0.4.0, STATUS and GC with 1.1.0).
 */
import { SUPPORTED_CNI_VERSIONS } from './protocol.ts';
import type { CniProblem } from './problem.ts';
import { CNI_ERROR } from './protocol.ts';

/** The version the plugin answers in when the input names none it can use (VERSION, early errors). */
export const CURRENT_CNI_VERSION = '1.1.0';

/** Every command a runtime may set in CNI_COMMAND. */
export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'STATUS' | 'GC' | 'VERSION';

/** The lowest spec version that defines each command. */
const COMMAND_FLOOR: Readonly<Record<CniCommand, string>> = {
  ADD: '0.1.0',
  DEL: '0.1.0',
  VERSION: '0.1.0',
  CHECK: '0.4.0',
  STATUS: '1.1.0',
  GC: '1.1.0',
};

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/**
 * A semantic version as three numbers, or undefined when the text is not one.
 *
 * @example
 * parseVersion('0.4.0') // [0, 4, 0]
 * parseVersion('v1') // undefined
 */
export function parseVersion(text: string): readonly [number, number, number] | undefined {
  const m = SEMVER.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/**
 * Orders two versions (both must parse): negative, zero or positive.
 *
 * @example
 * compareVersions('0.3.1', '0.4.0') < 0 // true
 */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) throw new RangeError(`compareVersions: ${JSON.stringify(x ? b : a)} is not a version`);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** Whether a result in this version carries `ips[].version` (the 0.3.x/0.4.0 result shape). */
export function isLegacyResultVersion(version: string): boolean {
  return compareVersions(version, '1.0.0') < 0;
}

/**
 * Checks that the config's `cniVersion` is one the plugin speaks and that the
 * command exists in it. An absent `cniVersion` is 0.1.0, as libcni reads it.
 *
 * @example
 * checkVersion('1.0.0', 'GC') // {code: 1, path: 'config.cniVersion', msg: 'GC needs cniVersion 1.1.0 or later, ...'}
 * checkVersion('1.1.0', 'ADD') // undefined
 */
export function checkVersion(version: string, command: CniCommand): CniProblem | undefined {
  const path = 'config.cniVersion';
  if (!parseVersion(version))
    return {
      code: CNI_ERROR.decodeFailure,
      path,
      msg: `cniVersion ${JSON.stringify(version)} is not a semantic version`,
    };
  if (!(SUPPORTED_CNI_VERSIONS as readonly string[]).includes(version))
    return {
      code: CNI_ERROR.incompatibleVersion,
      path,
      msg: `cniVersion ${version} is not supported by kovn`,
      details: `supported versions: ${SUPPORTED_CNI_VERSIONS.join(', ')}`,
    };
  const floor = COMMAND_FLOOR[command];
  if (compareVersions(version, floor) < 0)
    return {
      code: CNI_ERROR.incompatibleVersion,
      path,
      msg: `${command} needs cniVersion ${floor} or later, the config says ${version}`,
    };
  return undefined;
}
