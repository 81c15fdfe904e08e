/**
 * The plugin executable's entry (bundled by node/bundle into dist/cni/kovn):
 * a runtime runs it once per CNI command, so it loads only the plugin and
 * node:net, never the TypeScript loader or the rest of kovn.
 */
import { runCniProcess } from './run.ts';

void runCniProcess();
