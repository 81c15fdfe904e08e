/**
 * What kovn's controller makes of a cluster's objects, worked out beside the
 * cluster and never written to it: the objects the controller watches are
 * copied from the source into a fresh in-memory cluster, and a controller
 * runs over that copy onto the simulator. Its writes (annotations, IP
 * objects, status) land on the copy; its rows in the simulator. Started on a
 * topology read from a live NB, it restores IPAM from that NB's ports as the
 * real controller does after a restart, so the rows it ends with are the
 * rows the objects call for, and what it changed is what the live NB lacks.
 */
import { SimBackend } from '../../backends/sim/index.ts';
import type { ControllerSettings } from '../../controller/config.ts';
import { Controller, type StartReport } from '../../controller/controller.ts';
import { creationOrder } from '../../controller/handlers/context.ts';
import { settled } from '../../controller/settle.ts';
import { MemoryCluster } from '../../kube/cluster/memory.ts';
import type { ClusterSource } from '../../kube/cluster/types.ts';
import { WATCHED_KINDS } from '../../kube/registry.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import type { Topology } from '../../model/topology/index.ts';

export interface ReplayOptions {
  /** The controller's timers. */
  readonly clock: Clock;
  readonly settings?: ControllerSettings;
  /** Start from these rows (a live NB's, kovn's only); default: none. */
  readonly topology?: Topology;
  /** The simulator to write to (a probe world's); default: a new one, on `topology`. */
  readonly backend?: SimBackend;
  /** MAC randomness for what the objects do not fix (default 1). */
  readonly seed?: number;
}

export interface Replay {
  /** The copy, after the controller settled on it. */
  readonly cluster: MemoryCluster;
  readonly backend: SimBackend;
  readonly controller: Controller;
  readonly start: StartReport;
  /** Objects copied from the source. */
  readonly copied: number;
  /** Stops the controller (the copy and the simulator are plain values after that). */
  stop(): Promise<void>;
}

/** Kinds whose objects the others need first (subnets are ordered by creation). */
const FIRST = ['Namespace', 'Node', 'Vpc', 'Subnet', 'IPPool'];

/**
 * Copies what the controller watches from `source` into a new in-memory
 * cluster, per kind in the order the controller ranks objects by creation
 * (timestamp, then resourceVersion: controller/handlers/context.ts), so
 * that of two overlapping Subnets the copy refuses the one the cluster's
 * controller refuses.
 *
 * @example const { cluster, copied } = await copyCluster(await openSource(...));
 */
export async function copyCluster(source: ClusterSource): Promise<{ cluster: MemoryCluster; copied: number }> {
  const cluster = new MemoryCluster();
  const kinds = [...FIRST, ...WATCHED_KINDS.filter((k) => !FIRST.includes(k))];
  let copied = 0;
  for (const kind of kinds) {
    const { items } = await source.list(kind);
    for (const o of creationOrder(items)) {
      await cluster.create(o);
      copied++;
    }
  }
  return { cluster, copied };
}

/**
 * @example
 * const r = await replayCluster(source, { clock: realClock, topology: await nb.read() });
 * plan(live, await r.backend.read()); // what the live NB lacks or has too much of
 * await r.stop();
 */
export async function replayCluster(source: ClusterSource, opts: ReplayOptions): Promise<Replay> {
  const { cluster, copied } = await copyCluster(source);
  const backend = opts.backend ?? new SimBackend(opts.topology ? { topology: opts.topology } : {});
  const controller = new Controller({
    cluster,
    backend,
    clock: opts.clock,
    random: seededRandomBytes(opts.seed ?? 1),
    ...(opts.settings ? { settings: opts.settings } : {}),
  });
  const start = await controller.start();
  await settled(controller);
  return { cluster, backend, controller, start, copied, stop: () => controller.stop() };
}
