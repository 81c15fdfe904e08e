/**
 * `tsx node/bundle/main.ts`: builds every stale entry of entries.ts (npm test
 * runs this before vitest; `npm run build:node` too) and prints one line each.
 */
import { ensureAllBundled } from './build.ts';

try {
  for (const b of await ensureAllBundled())
    process.stderr.write(`${b.built ? 'built' : 'fresh'} ${b.entry.source} -> ${b.path}\n`);
} catch (e) {
  process.stderr.write(`kovn bundle: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
