/**
 * Run by registry.test.ts in a child Node process: starts a control plane
 * and the ovn-trace daemon (detached), prints their pids, the run dir and
 * the run guard's pid as one JSON line, then ends the way argv[2] says
 * without ever calling stop(). The exit hooks, or the run guard where no
 * JavaScript runs at death, must still end the daemons and remove the dir.
 */
import { startControlPlane, startOvnTrace } from './index.ts';
import { runGuardPid } from './run-guard.ts';

const how = process.argv[2] ?? 'exit';
const cp = await startControlPlane();
const tracer = await startOvnTrace({ dir: cp.dir, sbRemote: cp.sb.remote });
const pids = [cp.nb.pid, cp.sb.pid, cp.northd?.pid ?? 0, tracer.pid];
// What V8 does when the heap is exhausted: abort(), SIGABRT, no exit hook runs.
// On the test's signal, once it has seen the daemons; the handler is in place
// before the line is printed, or a fast test's SIGUSR2 would find none and end
// the process with SIGUSR2's default action instead.
if (how === 'abort') process.on('SIGUSR2', () => process.abort());
process.stdout.write(`${JSON.stringify({ pids, dir: cp.dir, guard: runGuardPid() })}\n`);
if (how === 'exit') process.exit(0);
if (how === 'throw') throw new Error('fixture: uncaught on purpose');
// 'signal' (and 'abort'): stay alive until the test sends a signal.
setInterval(() => undefined, 1_000);
