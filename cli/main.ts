/**
 * cli: the `kovn` command, the composition root. Clocks, sockets, processes
 * and randomness are created here (and in daemon mains) and passed down.
 */
import { Command } from 'commander';
import { installLifecycle } from './lifecycle.ts';
import { registerBench } from './bench.ts';
import { registerCni } from './cni.ts';
import { registerController } from './controller.ts';
import { registerDaemon } from './daemon.ts';
import { registerSim, registerTrace } from './sim.ts';
import { registerDifftest } from './difftest.ts';
import { registerKo } from './ko.ts';
import { shownLines } from './sim-output.ts';

installLifecycle();

const program = new Command()
  .name('kovn')
  .description(
    'Kube-OVN re-imagined: a simulation-first SDN. One logical model, interchangeable backends (simulator, real OVN).',
  )
  .version('0.1.0')
  .showHelpAfterError();

registerSim(program);
registerTrace(program);
registerBench(program);
registerDifftest(program);
registerKo(program);
registerCni(program);
registerController(program);
registerDaemon(program, async () => new (await import('../node/netlink/index.ts')).RtNetlink());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Messages quote the input (a name, a path): shown escaped, never acting on the terminal.
  process.stderr.write(`kovn: ${shownLines(err instanceof Error ? err.message : String(err))}\n`);
  process.exitCode = 1;
}
