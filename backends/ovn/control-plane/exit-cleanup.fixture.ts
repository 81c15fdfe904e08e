/**
 * Run by registry.test.ts in a child Node process: starts a control plane,
 * prints its pids as one JSON line, then ends the way argv[2] says without
 * ever calling stop(). The registry's exit hooks must still kill the daemons.
 */
import { startControlPlane } from './index.ts';

const how = process.argv[2] ?? 'exit';
const cp = await startControlPlane();
const pids = [cp.nb.pid, cp.sb.pid, cp.northd?.pid ?? 0];
process.stdout.write(`${JSON.stringify({ pids, dir: cp.dir })}\n`);
if (how === 'exit') process.exit(0);
if (how === 'throw') throw new Error('fixture: uncaught on purpose');
// 'signal': stay alive until the test sends SIGTERM or SIGINT.
setInterval(() => undefined, 1_000);
