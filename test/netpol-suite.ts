/**
 * Where the NetworkPolicy conformance suite lives (../shared/conformance/netpol,
 * generated data read in place, never copied): its scenario files, which the
 * scenario runner loads like any other (test/controller/netpol-runner.test.ts,
 * test/e2e/controller-ovn.test.ts).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DIR = resolve(
  process.env.KOVN_NETPOL_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'conformance', 'netpol'),
);

export function files(): string[] {
  return ['netpol-analyzer', 'upstream-e2e'].flatMap((sub) =>
    readdirSync(join(DIR, sub))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(DIR, sub, f)),
  );
}

/**
 * Files of the suite holding an object the API server refuses (netpol-analyzer
 * reads YAML without the API server's validation: three of its policies have
 * '_' in their names, which no cluster accepts). kovn refuses such an object
 * and marks the probes that depend on it unsure; the suite expects the policy
 * in force. A file is excused only when its own run refused an object (the
 * cause shown in the case), every probe that differs there is unsure, and the
 * excused files are at most this many (the three known today).
 */
export const EXCUSED_FILES_MAX = 3;

/** The refusals of a run's warnings (`InvalidObject`), the cause an excuse must show. */
export const refusals = (warnings: readonly { readonly code: string; readonly message: string }[]) =>
  warnings.filter((w) => w.code === 'InvalidObject');
