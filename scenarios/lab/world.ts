/**
 * The `lab` world of the scenario runner: real packets. A local OVN control
 * plane (NB, SB, northd) takes the controller's plans; one chassis of real
 * `ovs-vswitchd` (userspace datapath, real netdevs) and `ovn-controller`
 * carries them; every scenario node is a network namespace with `ovn0` and
 * outside hosts behind it (nodes.ts), every pod a namespace wired to br-int
 * (pods.ts), and every probe is answered by probe agents with real sockets
 * (answer.ts). `close` ends every process and deletes every namespace; on a
 * signal, a crash or kill -9 the run dir's exit hooks and run guard do
 * (host.ts, proc.mjs NETNS_LIST).
 */
import { type ControlPlane, startControlPlane } from '../../backends/ovn/control-plane/index.ts';
import { makeTempDir, removeTempDir } from '../../backends/ovn/control-plane/run-dir.ts';
import { runTool } from '../../backends/ovn/control-plane/exec.ts';
import { OvnProber } from '../../backends/ovn/prober.ts';
import { formatCIDR, networkOf as networkOfCIDR, tryParseCIDR } from '../../model/addr/index.ts';
import { decodeNodeNetwork, decodePodNetwork, podPortName } from '../../kube/annotations.ts';
import type { MemoryCluster } from '../../kube/cluster/memory.ts';
import { decodeNode, decodePod } from '../../kube/objects/objects.ts';
import type { ResolvedProbe } from '../probe.ts';
import type { ProbeWorld } from '../run.ts';
import { Agent } from './agents.ts';
import { answerProbe, type LabEnds, type ProbeAnswer } from './answer.ts';
import { LabChassis } from './chassis.ts';
import { LabError } from './errors.ts';
import { Namespaces } from './host.ts';
import { labNames, type LabNames } from './names.ts';
import { LabNode } from './nodes.ts';
import { DirectWiring, type LabPodSpec, type PodWiring, withPrefix } from './pods.ts';

type PacketProbe = ResolvedProbe & { kind: 'packet' };

interface WiredPod {
  readonly spec: LabPodSpec;
  readonly at: { readonly netns: string; readonly hostNic: string };
  readonly agent: Agent;
  /** Addresses and MAC it was wired with: a change rewires it. */
  readonly signature: string;
}

export interface LabWorldOptions {
  /** How long a probe waits for its answer (default 2000 ms: a SYN retransmitted once). */
  readonly probeTimeoutMs?: number;
  /** How pods are wired (default: directly, as the node agent does). */
  readonly wiring?: (vswitch: LabChassis['vswitch'], host: string) => PodWiring;
}

/**
 * @example
 * const world = await LabWorld.start();
 * const r = await runScenario(loadScenario('scenarios/quickstart.yaml'), { world });
 * await world.close();
 */
export class LabWorld implements ProbeWorld {
  #cluster: MemoryCluster | undefined;
  readonly #nodes = new Map<string, LabNode>();
  readonly #pods = new Map<string, WiredPod>();
  readonly #outsideAgents = new Map<string, Agent>();
  readonly #wiring: PodWiring;
  #nextPod = 0;
  #probes = 0;

  private constructor(
    private readonly dir: string,
    private readonly cp: ControlPlane,
    readonly backend: OvnProber,
    readonly chassis: LabChassis,
    private readonly namespaces: Namespaces,
    private readonly names: LabNames,
    private readonly opts: LabWorldOptions,
  ) {
    this.#wiring = (opts.wiring ?? ((vs, host) => new DirectWiring(vs, host)))(chassis.vswitch, names.host);
  }

  static async start(opts: LabWorldOptions = {}): Promise<LabWorld> {
    if (process.getuid?.() !== 0)
      throw new LabError('not-root', 'the lab backend makes network namespaces and veths: run it as root');
    const dir = await makeTempDir('lab');
    const cleanup: (() => Promise<void>)[] = [() => removeTempDir(dir)];
    try {
      const cp = await startControlPlane({});
      cleanup.unshift(() => cp.stop());
      const prober = await OvnProber.connect({ remotes: cp.nb.remote, sbRemote: cp.sb.remote, dir: cp.dir });
      cleanup.unshift(() => prober.close());
      const names = labNames(dir);
      const namespaces = new Namespaces(dir);
      await namespaces.add(names.host);
      const chassis = await LabChassis.start({ dir, sbRemote: cp.sb.remote, netns: names.host });
      return new LabWorld(dir, cp, prober, chassis, namespaces, names, opts);
    } catch (e) {
      for (const c of cleanup) await c().catch(() => {});
      throw e;
    }
  }

  /** The run's id, carried by every namespace and host interface it makes. */
  get runId(): string {
    return this.names.id;
  }

  /** The namespaces made so far (nodes, outside hosts, pods). */
  get netns(): readonly string[] {
    return this.namespaces.live;
  }

  attach(cluster: MemoryCluster): void {
    this.#cluster = cluster;
  }

  /** NB compiled, nodes and pods wired as the cluster has them, ovn-controller caught up. */
  async ready(): Promise<void> {
    await this.backend.sync();
    const cluster = this.#cluster;
    if (cluster === undefined) throw new LabError('wiring-failed', 'lab world: ready() before attach(cluster)');
    await this.#syncNodes(cluster);
    await this.#syncPods(cluster);
    await runTool('ovn-nbctl', [`--db=${this.cp.nb.remote}`, '--timeout=60', '--wait=hv', 'sync'], {
      dir: this.dir,
      timeoutMs: 70_000,
    });
  }

  async #syncNodes(cluster: MemoryCluster): Promise<void> {
    for (const o of (await cluster.list('Node')).items) {
      const n = decodeNode(o).value;
      if (this.#nodes.has(n.name)) continue;
      const d = decodeNodeNetwork(n.annotations);
      if (!d.ok || d.value.mac === undefined) continue;
      const i = this.#nodes.size;
      const node = await LabNode.create({
        spec: {
          name: n.name,
          mac: d.value.mac,
          addresses: d.value.ips.map((a) => withPrefix(a, d.value.cidrs)),
          gateways: d.value.gateways,
        },
        netns: this.names.node(i).netns,
        outside: this.names.outside(i).netns,
        hostNic: this.names.node(i).hostNic,
        host: this.names.host,
        namespaces: this.namespaces,
        vswitch: this.chassis.vswitch,
      });
      this.#nodes.set(n.name, node);
      this.#outsideAgents.set(n.name, await Agent.start(node.outside, `outside@${n.name}`));
    }
    // Routes to every subnet of the default VPC (its router's ports), as Kube-OVN routes them on ovn0.
    const t = await this.backend.read();
    const cidrs = [...t.routerPort.values()]
      .filter((rp) => rp.router === 'ovn-cluster' && !rp.name.endsWith('-join'))
      .flatMap((rp) => rp.networks.map(networkOf));
    for (const node of this.#nodes.values()) await node.routeCidrs(cidrs);
  }

  async #syncPods(cluster: MemoryCluster): Promise<void> {
    const want = new Map<string, LabPodSpec>();
    for (const o of (await cluster.list('Pod')).items) {
      const p = decodePod(o).value;
      const d = decodePodNetwork(p.annotations);
      if (!d.ok || p.nodeName === '' || !d.value.routed) continue;
      want.set(podPortName(p.name, p.namespace), {
        namespace: p.namespace,
        name: p.name,
        node: p.nodeName,
        annotations: p.annotations,
        network: d.value,
      });
    }
    for (const [port, w] of this.#pods)
      if (want.get(port) === undefined || signature(want.get(port)!) !== w.signature) await this.#unwire(port, w);
    for (const [port, spec] of want) if (!this.#pods.has(port)) await this.#wire(port, spec);
  }

  async #wire(port: string, spec: LabPodSpec): Promise<void> {
    const at = this.names.pod(this.#nextPod++);
    await this.namespaces.add(at.netns);
    await this.#wiring.add(spec, at);
    const agent = await Agent.start(at.netns, `${spec.namespace}/${spec.name}`);
    this.#pods.set(port, { spec, at, agent, signature: signature(spec) });
  }

  async #unwire(port: string, w: WiredPod): Promise<void> {
    this.#pods.delete(port);
    await w.agent.close();
    await this.#wiring.remove(w.spec, w.at);
    await this.namespaces.delete(w.at.netns);
  }

  /** What answer.ts needs of the lab: the agents behind logical ports, the nodes' outside hosts. */
  #ends(): LabEnds {
    return {
      pod: (port) => this.#pods.get(port)?.agent,
      outsideOf: (port) => {
        const node = port.startsWith('node-') ? port.slice(5) : undefined;
        const n = node === undefined ? undefined : this.#nodes.get(node);
        const agent = node === undefined ? undefined : this.#outsideAgents.get(node);
        return n && agent ? { agent, hold: (a) => n.holdOutside(a) } : undefined;
      },
      timeoutMs: this.opts.probeTimeoutMs ?? 2_000,
      token: () => `${this.names.id}-${this.#probes++}`,
    };
  }

  answer(r: PacketProbe): Promise<ProbeAnswer> {
    return answerProbe(this.#ends(), r);
  }

  async close(): Promise<void> {
    for (const a of [...this.#outsideAgents.values(), ...[...this.#pods.values()].map((p) => p.agent)])
      await a.close().catch(() => {});
    for (const ns of this.namespaces.live) await this.namespaces.delete(ns);
    await this.chassis.stop();
    await this.backend.close().catch(() => {});
    await this.cp.stop();
    await removeTempDir(this.dir);
  }
}

/** The network of a router port's `10.16.0.1/16`: `10.16.0.0/16` (`ip route` takes no host bits). */
const networkOf = (n: string): string => {
  const c = tryParseCIDR(n);
  return c === undefined ? n : formatCIDR(networkOfCIDR(c));
};

const signature = (p: LabPodSpec): string => `${p.network.ips.join(',')}|${p.network.mac ?? ''}`;
