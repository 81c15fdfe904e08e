/**
 * Where the OVN/OVS executables are and whether tests can use them. Debian
 * puts ovsdb-server in /usr/sbin, which is not on every user's PATH, so the
 * lookup also tries the sbin directories.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ControlPlaneError } from './errors.ts';

/** Every executable this module (and its tests) runs. */
export const OVN_BINARIES = [
  'ovsdb-tool',
  'ovsdb-server',
  'ovsdb-client',
  'ovn-northd',
  'ovn-nbctl',
  'ovn-sbctl',
  'ovn-trace',
  'ovn-appctl',
  'ovs-appctl',
  // The datapath oracle's chassis (verify/datapath).
  'ovs-vsctl',
  'ovs-ofctl',
  'ovs-vswitchd',
  'ovn-controller',
] as const;

export type OvnBinary = (typeof OVN_BINARIES)[number];

const EXTRA_DIRS = ['/usr/sbin', '/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];
const resolved = new Map<string, string | undefined>();

function lookup(name: string): string | undefined {
  if (resolved.has(name)) return resolved.get(name);
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean).concat(EXTRA_DIRS);
  let found: string | undefined;
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      found = join(dir, name);
      break;
    } catch {
      // not in this directory
    }
  }
  resolved.set(name, found);
  return found;
}

/**
 * Absolute path of an OVN/OVS executable.
 *
 * @example
 * execFile(binaryPath('ovn-nbctl'), ['--db=unix:/tmp/kovn-x/nb.sock', 'ls-list'])
 */
export function binaryPath(name: OvnBinary): string {
  const path = lookup(name);
  if (path === undefined) {
    throw new ControlPlaneError('binary-missing', `${name}: not found on PATH or in ${EXTRA_DIRS.join(', ')}`);
  }
  return path;
}

/**
 * @example
 * const { ok, missing } = ovnBinariesPresent(); // { ok: false, missing: ['ovn-northd'] }
 */
export function ovnBinariesPresent(): { ok: boolean; missing: string[] } {
  const missing = OVN_BINARIES.filter((b) => lookup(b) === undefined);
  return { ok: missing.length === 0, missing };
}

/**
 * The decision behind {@link requireOvn}, separated so it can be tested
 * without uninstalling OVN.
 */
export function decideRequireOvn(input: { missing: readonly string[]; required: boolean; ctx?: string }): boolean {
  if (input.missing.length === 0) return true;
  if (input.required) {
    const where = input.ctx ? `${input.ctx}: ` : '';
    throw new ControlPlaneError(
      'binary-missing',
      `${where}KOVN_REQUIRE_OVN=1 but OVN/OVS binaries are missing: ${input.missing.join(', ')}`,
    );
  }
  return false;
}

/**
 * True when the OVN binaries are installed. When they are missing and
 * `KOVN_REQUIRE_OVN=1` (CI), throws so the suite fails instead of skipping.
 *
 * @example
 * describe.skipIf(!requireOvn('ovsdb client'))('against real ovsdb-server', () => { ... })
 */
export function requireOvn(ctx?: string): boolean {
  const { missing } = ovnBinariesPresent();
  const input = { missing, required: process.env.KOVN_REQUIRE_OVN === '1' };
  return decideRequireOvn(ctx === undefined ? input : { ...input, ctx });
}
