/**
 * Where the AdminNetworkPolicy conformance suite lives (../shared/conformance/anp,
 * generated data read in place, never copied): its scenario files, which the
 * scenario runner loads like any other (test/controller/anp-runner.test.ts,
 * test/e2e/anp-ovn.test.ts).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ANP_DIR = resolve(
  process.env.KOVN_ANP_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'conformance', 'anp'),
);

/** The suite's files, sorted by name. */
export function anpFiles(): string[] {
  const dir = join(ANP_DIR, 'netpol-analyzer');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

/** The probes the suite holds (its README's count). */
export const ANP_PROBES = 8_922;

/**
 * Every k-th file of the suite runs on `--backend ovn` (test/e2e/anp-ovn.test.ts): k = 1, every file
 * (8,922 probes, about 160 s on two shared cores; k = 3 took 50 s).
 */
export const ANP_OVN_EVERY = 1;
