#!/usr/bin/env node
// The `kovn` executable: registers the TypeScript loader (tsx) and runs the CLI.
// Sources run as TypeScript directly, so a fresh clone needs only `npm ci`.
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';

// tsx keeps its compile cache in the temp dir and crashes with a stack trace
// when it cannot write there, before any of kovn's code runs; the OVN
// backends keep their run dirs there too. So the temp dir is checked first,
// on every command and backend, with one line naming it and the fix.
const tmp = tmpdir();
try {
  accessSync(tmp, constants.W_OK | constants.X_OK);
} catch (e) {
  const why = e.code === 'ENOENT' ? 'does not exist' : `is not writable (${e.code})`;
  process.stderr.write(`kovn: the temp directory ${tmp} ${why}; set TMPDIR to a writable directory\n`);
  process.exit(1);
}

const { register } = await import('tsx/esm/api');
register();
await import('../main.ts');
