/**
 * Probing: one packet into a backend's logical network and the verdict that
 * comes out. A capability of the backends that can answer it (the simulator
 * in process, real OVN through ovn-trace), kept out of the small `Backend`
 * interface so that a backend without it (a bare NB writer) stays honest.
 */
import type { Packet } from '../sim/index.ts';

export interface ProbeRequest {
  /** The logical switch port or router port the packet enters from. */
  readonly inport: string;
  readonly packet: Packet;
}

export interface ProbeOutput {
  readonly outport: string;
  /** The packet as it leaves (NAT, TTL and MAC rewrites applied). */
  readonly packet: Packet;
}

export interface ProbeVerdict {
  readonly verdict: 'delivered' | 'dropped';
  readonly outputs: readonly ProbeOutput[];
  /**
   * Parts of the verdict the backend could not observe (e.g. an ovn-trace
   * artefact documented in backends/ovn/trace/normalize.ts). Empty or absent:
   * the verdict is complete.
   */
  readonly caveats?: readonly string[];
}

export interface Prober {
  /** A first packet (conntrack sees it as new in every zone it crosses). */
  probe(req: ProbeRequest): Promise<ProbeVerdict>;
}
