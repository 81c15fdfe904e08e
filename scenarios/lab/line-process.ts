/**
 * A child process asked by JSON lines (the probe agents, the node daemons'
 * process): spawned inside a namespace of the run, tracked by the control
 * plane's registry (SIGKILLed at exit, and by the run guard if we die
 * first), each request `{"id", ...}` answered by a line with the same id;
 * the child says `{"id": 0}` once ready and ends at EOF of its stdin.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { stopPid, track, type TrackedPid } from '../../backends/ovn/control-plane/registry.ts';
import { LabError } from './errors.ts';

export type Json = Record<string, unknown>;

/**
 * @example
 * const p = await LineProcess.start('kl-Ab12Cd-p0', 'agent default/a', [process.execPath, AGENT, 'default/a']);
 * await p.ask('listen', { proto: 'tcp', port: 80 });
 * await p.close();
 */
export class LineProcess {
  #next = 1;
  readonly #waiting = new Map<number, (v: Json) => void>();
  #buffer = '';
  #stderr = '';

  private constructor(
    readonly name: string,
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    private readonly tracked: TrackedPid,
    readonly exited: Promise<unknown>,
  ) {
    child.stdout.setEncoding('utf8').on('data', (d: string) => this.#onData(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (this.#stderr = (this.#stderr + d).slice(-8192)));
    child.stdin.on('error', () => {});
  }

  /** Starts `argv` inside `netns`; resolves once it said it is ready. */
  static async start(netns: string, name: string, argv: readonly string[]): Promise<LineProcess> {
    const env = { ...process.env, NODE_OPTIONS: '' };
    const child = spawn('ip', ['netns', 'exec', netns, ...argv], { stdio: ['pipe', 'pipe', 'pipe'], env });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.pid === undefined) throw new LabError('agent-failed', `${name} in ${netns}: no pid`);
    const p = new LineProcess(name, child, track(child.pid, name, exited), exited);
    const ready = new Promise<Json>((resolve) => p.#waiting.set(0, resolve));
    const failed = exited.then(() => {
      throw new LabError('agent-failed', `${name} in ${netns} exited while starting: ${p.#stderr.trim()}`);
    });
    await Promise.race([ready, failed]);
    return p;
  }

  #onData(d: string): void {
    this.#buffer += d;
    for (let nl = this.#buffer.indexOf('\n'); nl >= 0; nl = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      let msg: Json;
      try {
        msg = JSON.parse(line) as Json;
      } catch {
        continue;
      }
      const id = Number(msg.id);
      this.#waiting.get(id)?.(msg);
      this.#waiting.delete(id);
    }
  }

  /** One request; rejects if the process ends before answering. */
  ask(op: string, body: Json = {}): Promise<Json> {
    const id = this.#next++;
    const answered = new Promise<Json>((resolve) => {
      this.#waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, op, ...body })}\n`);
    });
    const died = this.exited.then(() => {
      throw new LabError('agent-failed', `${this.name} ended before answering ${op}: ${this.#stderr.trim()}`);
    });
    return Promise.race([answered, died]);
  }

  /** EOF on its stdin, then (after a grace period) SIGTERM/SIGKILL; resolves once it is gone. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await stopPid(this.tracked, { graceMs: 2_000 });
  }
}
