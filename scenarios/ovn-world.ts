/**
 * The `ovn` world of the scenario runner: a local OVN control plane in a
 * temp dir (NB, SB, northd), the controller's plans written into NB through
 * our OVSDB client, and each probe's first packet answered by ovn-trace over
 * the flows northd compiled. `close` stops every process and removes the
 * dir (on a signal or a crash the control plane's exit hooks and run guard do).
 */
import { type ControlPlane, startControlPlane } from '../backends/ovn/control-plane/index.ts';
import { OvnProber } from '../backends/ovn/prober.ts';
import type { ProbeWorld } from './run.ts';
import type { ResolvedProbe } from './probe.ts';

export class OvnWorld implements ProbeWorld {
  private constructor(
    private readonly cp: ControlPlane,
    readonly backend: OvnProber,
  ) {}

  static async start(): Promise<OvnWorld> {
    const cp = await startControlPlane({});
    try {
      const prober = await OvnProber.connect({ remotes: cp.nb.remote, sbRemote: cp.sb.remote, dir: cp.dir });
      return new OvnWorld(cp, prober);
    } catch (e) {
      await cp.stop();
      throw e;
    }
  }

  /** The NB database's remote (for inspection). */
  get nbRemote(): string {
    return this.cp.nb.remote;
  }

  async ready(): Promise<void> {
    await this.backend.sync();
  }

  async answer(r: ResolvedProbe & { kind: 'packet' }): Promise<{ allowed: boolean; reason?: string }> {
    const v = await this.backend.probe({ inport: r.inport, packet: r.packet });
    const ports = v.outputs.map((o) => o.outport);
    if (r.routerAnswers) {
      const ok = ports.includes(r.inport);
      return ok ? { allowed: true } : { allowed: false, reason: 'ovn-trace: no echo reply came back' };
    }
    if (ports.some((p) => r.targets.includes(p))) return { allowed: true };
    return {
      allowed: false,
      reason:
        v.verdict === 'dropped' || ports.length === 0
          ? 'ovn-trace: dropped'
          : `ovn-trace: reached ${ports.join(', ')}, not ${r.targets.join(', ')}`,
    };
  }

  async ovnTrace(r: ResolvedProbe & { kind: 'packet' }): Promise<string> {
    return (await this.backend.trace({ inport: r.inport, packet: r.packet })).raw;
  }

  async close(): Promise<void> {
    await this.backend.close().catch(() => {});
    await this.cp.stop();
  }
}
