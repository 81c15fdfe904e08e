/**
 * Run dirs: the temp dir a control plane, a cluster or a chassis lives in.
 * Each holds an owner marker (`kovn-owner.json`: pid, start time, boot id,
 * pid namespace) and is registered with the exit hooks and the run guard as
 * it is made, so it is removed however its run ends; a later run's guard
 * removes the dirs whose owner is gone and never a live run's
 * (guard-main.mjs). With KOVN_KEEP_TMP=1 dirs get no marker and are kept.
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneError } from './errors.ts';
import { removeNetnsOfSync, selfOwner, writeOwnerMarker } from './proc.mjs';
import { releaseRunDir, trackRunDir } from './registry.ts';

const keep = (): boolean => process.env.KOVN_KEEP_TMP === '1';

/**
 * A fresh directory `kovn-<prefix>-XXXXXX` under the OS temp dir, owned by
 * this process. Keep prefixes short: unix socket paths inside it are limited
 * to 107 bytes.
 *
 * @example
 * const dir = await makeTempDir('nb'); // '/tmp/kovn-nb-Ab12Cd'
 * await removeTempDir(dir);
 */
export async function makeTempDir(prefix = 'tmp'): Promise<string> {
  // mkdtemp, marker and registration in one synchronous turn: no signal
  // handler can run between them and find an unregistered dir.
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), `kovn-${prefix}-`));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new ControlPlaneError(
      'start-failed',
      `cannot make a run dir in the temp dir ${tmpdir()} (${code}); set TMPDIR to a writable directory`,
      { cause: e },
    );
  }
  if (keep()) return dir;
  const owner = selfOwner();
  if (owner !== undefined) writeOwnerMarker(dir, owner);
  trackRunDir(dir);
  return dir;
}

/**
 * Removes a dir {@link makeTempDir} made (kept with KOVN_KEEP_TMP=1).
 *
 * @example
 * if (ownDir) await removeTempDir(dir);
 */
export async function removeTempDir(dir: string): Promise<void> {
  // The namespaces it lists go too (proc.mjs, NETNS_LIST), also when the dir itself is kept.
  removeNetnsOfSync(dir);
  if (!keep()) await rm(dir, { recursive: true, force: true });
  releaseRunDir(dir);
}
