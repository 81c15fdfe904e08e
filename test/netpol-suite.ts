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
