/**
 * How the `kovn` process ends, whatever ends it. Installed first by main.ts.
 *
 * - SIGINT, SIGTERM, SIGHUP: exit at once with 128 + the signal number (130,
 *   143, 129), as a shell reports a process a signal ended. A long-running
 *   command that must hand over first (`kovn controller` releases its
 *   Lease) registers `onTerminate`: the signal then runs it and exits with
 *   the same status once it is done; a second signal exits at once. Cleaning up is
 *   not done here: the control plane's exit hooks SIGKILL every daemon of the
 *   run and remove its dirs synchronously, in the 'exit' event, so a second
 *   Ctrl-C has nothing left to interrupt; where no JavaScript runs at death
 *   (SIGKILL, V8's out-of-memory abort) the run guard does it
 *   (backends/ovn/control-plane/run-guard.ts).
 * - A closed stdout or stderr (`kovn trace ... | head -1`): the write fails
 *   with EPIPE; the process ends quietly with 141, the status a shell reports
 *   for a C tool that SIGPIPE ended (Node ignores SIGPIPE, so the write
 *   fails instead).
 */

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
const SIGPIPE = 13;

let terminating: (() => Promise<void>) | undefined;
let signalled = false;

/**
 * What a terminating signal runs before the process exits (one handler; the last registered).
 *
 * @example onTerminate(async () => { await replica.terminate(); });
 */
export function onTerminate(handler: () => Promise<void>): void {
  terminating = handler;
}

/**
 * @example
 * installLifecycle();
 * await program.parseAsync(process.argv);
 */
export function installLifecycle(): void {
  for (const [name, number] of Object.entries(SIGNALS)) {
    process.on(name as NodeJS.Signals, () => {
      const run = terminating;
      if (run === undefined || signalled) process.exit(128 + number);
      signalled = true;
      void run()
        .catch(() => {})
        .then(() => process.exit(128 + number));
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(128 + SIGPIPE);
    });
  }
}
