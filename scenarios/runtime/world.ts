/**
 * A one-node cluster whose pods are wired for real: a local OVN control
 * plane, the controller over the in-memory cluster committing to its NB,
 * the node's OVS (netdev datapath, real netdevs) with ovn-controller, and
 * the node daemon listening on a socket in the run dir. Pods are created in
 * the cluster first (the controller gives them their addresses); then a
 * runtime (podman, or {@link RuntimeWorld.add} calling the plugin as a
 * runtime does) asks the plugin, the plugin the daemon.
 */
import { join } from 'node:path';
import {
  type ControlPlane,
  makeTempDir,
  removeTempDir,
  startControlPlane,
} from '../../backends/ovn/control-plane/index.ts';
import { OvnBackend } from '../../backends/ovn/nb/index.ts';
import { settingsFromScenario } from '../../controller/config.ts';
import { Controller } from '../../controller/controller.ts';
import { settled } from '../../controller/settle.ts';
import { decodePodNetwork, type PodNetworkRead } from '../../kube/annotations.ts';
import type { MemoryCluster } from '../../kube/cluster/memory.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { seededRandomBytes } from '../../model/ipam/index.ts';
import { applyObjects, deleteObject, type Expanded, expandObjects } from '../expand.ts';
import { NodeChassis } from './chassis.ts';
import { RuntimeError } from './errors.ts';

/** What the world needs of the node daemon: started over the cluster, on the node's conf.db and a socket. */
export type StartDaemon = (o: {
  readonly node: string;
  readonly cluster: MemoryCluster;
  readonly ovsRemote: string;
  readonly socket: string;
}) => Promise<{ close(): Promise<void> }>;

export interface RuntimeWorldOptions {
  /** The node's name (and chassis system-id); default `kovn-node-1`. */
  readonly node?: string;
  readonly startDaemon: StartDaemon;
}

export interface PodSpec {
  readonly name: string;
  /** Default `default`. */
  readonly namespace?: string;
  /** E.g. `ovn.kubernetes.io/ingress_rate`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * @example
 * const w = await RuntimeWorld.start({ startDaemon });
 * const net = await w.createPod({ name: 'c1' }); // net.ips: ['10.16.0.2']
 * // podman run --name c1 --network kovn ... (conflist: w.conflist('kovn'))
 * await w.close();
 */
export class RuntimeWorld {
  #closed = false;

  private constructor(
    readonly dir: string,
    readonly node: string,
    private readonly cp: ControlPlane,
    private readonly backend: OvnBackend,
    readonly chassis: NodeChassis,
    private readonly sim: Expanded,
    private readonly controller: Controller,
    private readonly daemon: { close(): Promise<void> },
  ) {}

  static async start(opts: RuntimeWorldOptions): Promise<RuntimeWorld> {
    const node = opts.node ?? 'kovn-node-1';
    const dir = await makeTempDir('rt');
    const undo: (() => Promise<unknown>)[] = [() => removeTempDir(dir)];
    try {
      const cp = await startControlPlane({});
      undo.unshift(() => cp.stop());
      const backend = await OvnBackend.connect({ remotes: cp.nb.remote });
      undo.unshift(() => backend.close());
      const chassis = await NodeChassis.start({ dir, sbRemote: cp.sb.remote, systemId: node });
      undo.unshift(() => chassis.stop());
      const node0 = { apiVersion: 'v1', kind: 'Node', metadata: { name: node } };
      const sim = await expandObjects([node0], {});
      undo.unshift(async () => sim.workloads.stop());
      const settings = settingsFromScenario({});
      const controller = new Controller({
        cluster: sim.cluster,
        backend,
        clock: realClock,
        random: seededRandomBytes(1),
        settings,
      });
      await controller.start();
      undo.unshift(() => controller.stop());
      await settled(controller);
      const socket = join(dir, 'daemon.sock');
      const daemon = await opts.startDaemon({ node, cluster: sim.cluster, ovsRemote: chassis.conf.remote, socket });
      return new RuntimeWorld(dir, node, cp, backend, chassis, sim, controller, daemon);
    } catch (e) {
      for (const u of undo) await u().catch(() => {});
      throw e;
    }
  }

  get cluster(): MemoryCluster {
    return this.sim.cluster;
  }

  /** The daemon's socket (the conflist's `server_socket`). */
  get socket(): string {
    return join(this.dir, 'daemon.sock');
  }

  /** The node's Open_vSwitch database. */
  get ovsRemote(): string {
    return this.chassis.conf.remote;
  }

  /** The plugin's entry in a conflist naming this world's daemon. */
  pluginConfig(type = 'kovn'): Record<string, unknown> {
    return { type, server_socket: this.socket };
  }

  /**
   * Creates the pod on this node and waits until the controller has given it
   * its network (allocated and routed); returns what its annotations say.
   */
  async createPod(p: PodSpec): Promise<PodNetworkRead> {
    const [net] = await this.createPods([p]);
    return net!;
  }

  /** {@link createPod} for many pods: one write of them all, one wait for the controller. */
  async createPods(specs: readonly PodSpec[]): Promise<PodNetworkRead[]> {
    const pods = specs.map((p) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: p.name, namespace: p.namespace ?? 'default', annotations: { ...p.annotations } },
      spec: { nodeName: this.node, containers: [{ name: 'main', image: 'busybox' }] },
    }));
    await applyObjects(this.sim, pods, { mode: 'apply' });
    await settled(this.controller);
    const out: PodNetworkRead[] = [];
    for (const { metadata: m } of pods) {
      const got = await this.cluster.get({ kind: 'Pod', namespace: m.namespace, name: m.name });
      const d = decodePodNetwork(got?.metadata.annotations ?? {});
      if (!d.ok || !d.value.routed)
        throw new RuntimeError('tool-failed', `pod ${m.namespace}/${m.name}: no network after the controller settled`);
      out.push(d.value);
    }
    return out;
  }

  async deletePod(name: string, namespace = 'default'): Promise<void> {
    await deleteObject(this.sim, { kind: 'Pod', namespace, name });
    await settled(this.controller);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const steps = [
      () => this.daemon.close(),
      () => this.controller.stop(),
      async () => this.sim.workloads.stop(),
      () => this.chassis.stop(),
      () => this.backend.close(),
      () => this.cp.stop(),
      () => removeTempDir(this.dir),
    ];
    for (const s of steps) await s().catch(() => {});
  }
}
