/**
 * Real OVN as a `Backend` that can also be probed: plans go to the NB
 * through `OvnBackend`; a probe waits until northd has compiled the last
 * write (nb_cfg → sb_cfg), reloads ovn-trace if the SB changed since its last
 * load, and asks it for the verdict of a first packet (ct new in every zone).
 */
import type { Plan, Topology } from '../../model/topology/index.ts';
import type { ApplyOptions, ApplyResult, Backend, RowChange, RowKeys, RowsRead } from '../backend.ts';
import type { ProbeRequest, ProbeVerdict, Prober } from '../probe.ts';
import { OvnBackend, type OvnBackendOptions } from './nb/index.ts';
import { OvnTracer, type OvnTraceResult } from './trace/index.ts';

export interface OvnProberOptions extends OvnBackendOptions {
  /** Southbound remote ovn-trace reads. */
  readonly sbRemote: string;
  /** Directory for ovn-trace's pid/ctl/log files (short: unix socket paths). */
  readonly dir: string;
}

export class OvnProber implements Backend, Prober {
  readonly kind = 'ovn';
  private stale = true;

  private constructor(
    readonly nb: OvnBackend,
    readonly tracer: OvnTracer,
  ) {}

  static async connect(opts: OvnProberOptions): Promise<OvnProber> {
    const nb = await OvnBackend.connect(opts);
    try {
      const tracer = await OvnTracer.start({ dir: opts.dir, sbRemote: opts.sbRemote });
      return new OvnProber(nb, tracer);
    } catch (err) {
      await nb.close();
      throw err;
    }
  }

  async apply(plan: Plan, opts?: ApplyOptions): Promise<ApplyResult> {
    if (plan.length > 0) this.stale = true;
    return this.nb.apply(plan, opts);
  }

  read(): Promise<Topology> {
    return this.nb.read();
  }

  readRows(keys: RowKeys): Promise<RowsRead> {
    return this.nb.readRows(keys);
  }

  watch(listener: (changes: readonly RowChange[]) => void): () => void {
    return this.nb.watch(listener);
  }

  /** Wait for northd and reload ovn-trace, if anything was applied since the last sync. */
  async sync(): Promise<void> {
    if (!this.stale) return;
    await this.nb.waitForNorthd();
    await this.tracer.reload();
    this.stale = false;
  }

  /** The full ovn-trace result (stages, raw text, quirks) for one first packet. */
  async trace(
    req: ProbeRequest & { readonly lbBackend?: string; readonly registers?: string },
  ): Promise<OvnTraceResult> {
    await this.sync();
    const topology = await this.nb.read();
    const datapath = topology.switchPort.get(req.inport)?.switch ?? topology.routerPort.get(req.inport)?.router;
    if (datapath === undefined)
      throw new Error(`OvnProber: inport ${JSON.stringify(req.inport)} is not a port kovn wrote`);
    return this.tracer.trace({
      datapath,
      inport: req.inport,
      packet: req.packet,
      ct: 'new',
      ...(req.lbBackend ? { lbBackend: req.lbBackend } : {}),
      ...(req.registers ? { registers: req.registers } : {}),
    });
  }

  async probe(req: ProbeRequest): Promise<ProbeVerdict> {
    const r = await this.trace(req);
    return {
      verdict: r.verdict,
      outputs: r.outputs.map((o) => ({ outport: o.outport, packet: o.packet })),
      ...(r.caveats.length > 0 ? { caveats: r.caveats.map((c) => `${c.rule}: ${c.detail}`) } : {}),
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.tracer.stop(), this.nb.close()]);
  }
}
