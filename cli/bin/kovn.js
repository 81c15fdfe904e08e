#!/usr/bin/env node
// The `kovn` executable: registers the TypeScript loader (tsx) and runs the CLI.
// Sources run as TypeScript directly, so a fresh clone needs only `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
