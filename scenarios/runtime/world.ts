/**
 * A one-node cluster whose pods are wired for real: a local OVN control
 * plane, the controller over the in-memory cluster committing to its NB,
 * the node's OVS (the lab's chassis: ovs-vswitchd on the netdev datapath
 * with real netdevs, and ovn-controller) and the node daemon listening on a
 * socket in the run dir. vswitchd and the daemon run inside a network
 * namespace of the run, the node's host network: one netdev vswitchd per
 * namespace (a second one cannot open the `ovs-netdev` tap the first holds),
 * and the veths' host ends go with the namespace. Pods are created in the
 * cluster first (the controller gives them their addresses, the daemon is
 * told); then a runtime (podman, or CniPods calling the plugin as a runtime
 * does) asks the plugin, the plugin the daemon.
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
import { LabChassis } from '../lab/chassis.ts';
import { LabDaemons } from '../lab/daemons.ts';
import { Namespaces } from '../lab/host.ts';
import { RuntimeError } from './errors.ts';
import { runName } from './support.ts';

export interface RuntimeWorldOptions {
  /** The node's name (and chassis system-id); default `kovn-node-1`. */
  readonly node?: string;
}

export interface PodSpec {
  readonly name: string;
  /** Default `default`. */
  readonly namespace?: string;
  /** E.g. `ovn.kubernetes.io/ingress_rate`. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** What a started world is made of. */
interface WorldParts {
  readonly dir: string;
  readonly node: string;
  readonly namespaces: Namespaces;
  readonly hostNetns: string;
  readonly cp: ControlPlane;
  readonly backend: OvnBackend;
  readonly chassis: LabChassis;
  readonly sim: Expanded;
  readonly controller: Controller;
  readonly daemon: LabDaemons;
}

/**
 * @example
 * const w = await RuntimeWorld.start();
 * const net = await w.createPod({ name: 'c1' }); // net.ips: ['10.16.0.2']
 * // podman run --name c1 --network kovn ... (the conflist's plugin entry: w.pluginConfig())
 * await w.close();
 */
export class RuntimeWorld {
  #closed = false;

  private constructor(private readonly parts: WorldParts) {}

  static async start(opts: RuntimeWorldOptions = {}): Promise<RuntimeWorld> {
    const node = opts.node ?? 'kovn-node-1';
    const dir = await makeTempDir('rt');
    const namespaces = new Namespaces(dir);
    const host = runName('krh');
    const undo: (() => Promise<unknown>)[] = [() => removeTempDir(dir), () => namespaces.delete(host)];
    try {
      await namespaces.add(host);
      const cp = await startControlPlane({});
      undo.unshift(() => cp.stop());
      const backend = await OvnBackend.connect({ remotes: cp.nb.remote });
      undo.unshift(() => backend.close());
      const chassis = await LabChassis.start({ dir, sbRemote: cp.sb.remote, netns: host, systemId: node });
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
      const daemon = await LabDaemons.start({ host, dir, ovsRemote: chassis.conf.remote });
      undo.unshift(() => daemon.close());
      await daemon.addNode({ name: node }, socket);
      return new RuntimeWorld({
        dir,
        node,
        namespaces,
        hostNetns: host,
        cp,
        backend,
        chassis,
        sim,
        controller,
        daemon,
      });
    } catch (e) {
      for (const u of undo) await u().catch(() => {});
      throw e;
    }
  }

  /** The run dir (its sockets, logs and the podman store of a test). */
  get dir(): string {
    return this.parts.dir;
  }

  /** The node's name. */
  get node(): string {
    return this.parts.node;
  }

  /** The run's namespaces (listed in the run dir: they go with it however the run ends). */
  get namespaces(): Namespaces {
    return this.parts.namespaces;
  }

  /** The node's host network: where ovs-vswitchd, the daemon and the veths' host ends are. */
  get hostNetns(): string {
    return this.parts.hostNetns;
  }

  /** ovs-vswitchd and ovn-controller of the node. */
  get chassis(): LabChassis {
    return this.parts.chassis;
  }

  get cluster(): MemoryCluster {
    return this.parts.sim.cluster;
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
    await applyObjects(this.parts.sim, pods, { mode: 'apply' });
    await settled(this.parts.controller);
    const out: PodNetworkRead[] = [];
    for (const { metadata: m } of pods) {
      const got = await this.cluster.get({ kind: 'Pod', namespace: m.namespace, name: m.name });
      const d = decodePodNetwork(got?.metadata.annotations ?? {});
      if (got === undefined || !d.ok || !d.value.routed)
        throw new RuntimeError('tool-failed', `pod ${m.namespace}/${m.name}: no network after the controller settled`);
      await this.parts.daemon.put(got);
      out.push(d.value);
    }
    return out;
  }

  /** Merges `annotations` into the pod's (as `kubectl annotate` does); the daemon is told once the controller settled. */
  async annotatePod(name: string, annotations: Readonly<Record<string, string>>, namespace = 'default'): Promise<void> {
    const ref = { kind: 'Pod', namespace, name };
    const pod = await this.cluster.get(ref);
    if (pod === undefined) throw new RuntimeError('tool-failed', `pod ${namespace}/${name}: not in the cluster`);
    const metadata = { ...pod.metadata, annotations: { ...pod.metadata.annotations, ...annotations } };
    await this.cluster.update({ ...pod, metadata });
    await settled(this.parts.controller);
    const now = await this.cluster.get(ref);
    if (now !== undefined) await this.parts.daemon.put(now);
  }

  async deletePod(name: string, namespace = 'default'): Promise<void> {
    await deleteObject(this.parts.sim, { kind: 'Pod', namespace, name });
    await settled(this.parts.controller);
    await this.parts.daemon.delete(namespace, name);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const p = this.parts;
    const steps = [
      () => p.daemon.close(),
      () => p.controller.stop(),
      async () => p.sim.workloads.stop(),
      () => p.chassis.stop(),
      () => p.backend.close(),
      () => p.cp.stop(),
      async () => {
        for (const n of p.namespaces.live) await p.namespaces.delete(n);
      },
      () => removeTempDir(p.dir),
    ];
    for (const s of steps) await s().catch(() => {});
  }
}
