/**
 * The TypeScript side of the probe agents (agent.mjs): one per namespace,
 * spawned inside it, asked by JSON lines. Each agent is tracked by the
 * control plane's registry (SIGKILLed at exit, and by the run guard if we
 * die first) and ends by itself at EOF of its stdin.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stopPid, track, type TrackedPid } from '../../backends/ovn/control-plane/registry.ts';
import { LabError } from './errors.ts';

const AGENT_MAIN = fileURLToPath(new URL('./agent.mjs', import.meta.url));

export type AgentProto = 'tcp' | 'udp';

export interface ConnectRequest {
  readonly proto: AgentProto;
  readonly dst: string;
  readonly port: number;
  readonly token: string;
  readonly timeoutMs: number;
  /** Bind to this source address (an outside host's, or a spoofed one added to the interface). */
  readonly src?: string;
}

export interface ConnectAnswer {
  /** TCP: the handshake completed. */
  readonly connected?: boolean;
  /** The listener's name, as it answered. */
  readonly reply?: string;
  readonly error?: string;
}

export interface PingAnswer {
  readonly replied: boolean;
  readonly error?: string;
}

type Json = Record<string, unknown>;

/**
 * @example
 * const a = await Agent.start('kl-Ab12Cd-p0', 'default/web');
 * await a.listen('tcp', 80);
 * a.close();
 */
export class Agent {
  #next = 1;
  readonly #waiting = new Map<number, (v: Json) => void>();
  #buffer = '';

  private constructor(
    readonly netns: string,
    readonly name: string,
    private readonly child: ChildProcessByStdio<Writable, Readable, null>,
    private readonly tracked: TrackedPid,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => this.#onData(d));
  }

  /** Starts the agent inside `netns`; resolves once it said it is ready. */
  static async start(netns: string, name: string): Promise<Agent> {
    const env = { ...process.env, NODE_OPTIONS: '' };
    const child = spawn('ip', ['netns', 'exec', netns, process.execPath, AGENT_MAIN, name], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env,
    });
    const reaped = new Promise((resolve) => child.once('exit', resolve));
    if (child.pid === undefined) throw new LabError('agent-failed', `probe agent of ${name} in ${netns}: no pid`);
    const agent = new Agent(netns, name, child, track(child.pid, `agent ${name}`, reaped));
    const ready = new Promise<Json>((resolve) => agent.#waiting.set(0, resolve));
    const failed = reaped.then(() => {
      throw new LabError('agent-failed', `probe agent of ${name} in ${netns} exited while starting`);
    });
    await Promise.race([ready, failed]);
    child.stdin.on('error', () => {});
    return agent;
  }

  #onData(d: string): void {
    this.#buffer += d;
    for (let nl = this.#buffer.indexOf('\n'); nl >= 0; nl = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      const msg = JSON.parse(line) as Json;
      const id = Number(msg.id);
      this.#waiting.get(id)?.(msg);
      this.#waiting.delete(id);
    }
  }

  #ask(op: string, body: Json = {}): Promise<Json> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, op, ...body })}\n`, (e) => {
        if (e) reject(new LabError('agent-failed', `probe agent of ${this.name}: ${e.message}`, { cause: e }));
      });
    });
  }

  async listen(proto: AgentProto, port: number): Promise<void> {
    const r = await this.#ask('listen', { proto, port });
    if (r.ok !== true)
      throw new LabError('agent-failed', `probe agent of ${this.name}: listen ${proto}/${port}: ${String(r.error)}`);
  }

  async connect(req: ConnectRequest): Promise<ConnectAnswer> {
    return (await this.#ask('connect', { ...req })) as ConnectAnswer;
  }

  /** Whether a listener here received `token`. */
  async seen(token: string): Promise<boolean> {
    return (await this.#ask('seen', { token })).seen !== null;
  }

  async ping(dst: string, timeoutMs: number, src?: string): Promise<PingAnswer> {
    return (await this.#ask('ping', { dst, timeoutMs, ...(src ? { src } : {}) })) as unknown as PingAnswer;
  }

  /** ICMP echo requests this namespace's kernel received so far. */
  async echoes(): Promise<number> {
    return Number((await this.#ask('echoes')).echoes);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await stopPid(this.tracked, { graceMs: 1_000 });
  }
}
