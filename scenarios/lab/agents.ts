/**
 * The TypeScript side of the probe agents (agent.mjs): one per namespace,
 * spawned inside it, asked by JSON lines. Each agent is tracked by the
 * control plane's registry (SIGKILLed at exit, and by the run guard if we
 * die first) and ends by itself at EOF of its stdin.
 */
import { fileURLToPath } from 'node:url';
import { LabError } from './errors.ts';
import { LineProcess } from './line-process.ts';

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

/**
 * @example
 * const a = await Agent.start('kl-Ab12Cd-p0', 'default/web');
 * await a.listen('tcp', 80);
 * await a.close();
 */
export class Agent {
  private constructor(
    readonly netns: string,
    readonly name: string,
    private readonly p: LineProcess,
  ) {}

  /** Starts the agent inside `netns`; resolves once it said it is ready. */
  static async start(netns: string, name: string): Promise<Agent> {
    return new Agent(
      netns,
      name,
      await LineProcess.start(netns, `agent ${name}`, [process.execPath, AGENT_MAIN, name]),
    );
  }

  async listen(proto: AgentProto, port: number): Promise<void> {
    const r = await this.p.ask('listen', { proto, port });
    if (r.ok !== true)
      throw new LabError('agent-failed', `probe agent of ${this.name}: listen ${proto}/${port}: ${String(r.error)}`);
  }

  async connect(req: ConnectRequest): Promise<ConnectAnswer> {
    return (await this.p.ask('connect', { ...req })) as ConnectAnswer;
  }

  /** Whether a listener here received `token`. */
  async seen(token: string): Promise<boolean> {
    return (await this.p.ask('seen', { token })).seen !== null;
  }

  async ping(dst: string, timeoutMs: number, src?: string): Promise<PingAnswer> {
    return (await this.p.ask('ping', { dst, timeoutMs, ...(src ? { src } : {}) })) as unknown as PingAnswer;
  }

  /** ICMP echo requests this namespace's kernel received so far. */
  async echoes(): Promise<number> {
    return Number((await this.p.ask('echoes')).echoes);
  }

  async close(): Promise<void> {
    await this.p.close();
  }
}
