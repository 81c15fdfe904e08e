/**
 * The `lab` world of the scenario runner: real packets. A local OVN control
 * plane (NB, SB, northd) takes the controller's plans; one chassis of real
 * `ovs-vswitchd` (userspace datapath, real netdevs) and `ovn-controller`
 * carries them; every scenario node is a network namespace with `ovn0` made
 * by the node set-up and outside hosts behind it (nodes.ts), with its own
 * kovn node daemon (daemons.ts, in the lab's host namespace where vswitchd
 * runs); every pod is a namespace wired by kovn's CNI plugin executable,
 * called as a runtime calls it, and that node's daemon (cni.ts); every
 * probe is answered by probe agents with real sockets (answer.ts). `close` ends every process and deletes every namespace; on a
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
import type { KubeObject } from '../../kube/cluster/types.ts';
import { dstPort, ipDst, ipSrc } from '../../model/packet/index.ts';
import { decodeNode, decodePod, decodeSubnet } from '../../kube/objects/objects.ts';
import type { ControllerSettings } from '../../controller/config.ts';
import type { ResolvedProbe } from '../probe.ts';
import type { ProbeWorld } from '../run.ts';
import { Agent } from './agents.ts';
import { addr, answerProbe, type LabEnds, type ProbeAnswer } from './answer.ts';
import { LabChassis } from './chassis.ts';
import { LabError } from './errors.ts';
import { ipIn, Namespaces } from './host.ts';
import { labNames, type LabNames } from './names.ts';
import { LabNode } from './nodes.ts';
import type { LabPodSpec, PodWiring } from './pods.ts';
import { attachmentRouteUnsure, attachmentsOf, type WiredAttachment } from './attachments.ts';
import { CniWiring } from './cni.ts';
import { LabDaemons } from './daemons.ts';
import { LabNatGateways } from './natgw.ts';
import { buildIndex } from '../probe.ts';
import { NAT_GATEWAY_KINDS } from '../natgw.ts';

type PacketProbe = ResolvedProbe & { kind: 'packet' };

interface WiredPod {
  readonly spec: LabPodSpec;
  readonly at: { readonly netns: string; readonly hostNic: string };
  readonly agent: Agent;
  /** Its Multus attachments' interfaces (net1, ...), each with its switch port. */
  readonly attachments: readonly WiredAttachment[];
  /** Addresses and MAC it was wired with: a change rewires it. */
  readonly signature: string;
}

/** What a started lab is made of. */
interface LabParts {
  readonly dir: string;
  readonly cp: ControlPlane;
  readonly backend: OvnProber;
  readonly chassis: LabChassis;
  readonly daemons: LabDaemons;
  readonly wiring: PodWiring;
  readonly namespaces: Namespaces;
  readonly names: LabNames;
}

export interface LabWorldOptions {
  /** How long a probe waits for its answer (default 2000 ms: a SYN retransmitted once). */
  readonly probeTimeoutMs?: number;
}

/**
 * @example
 * const world = await LabWorld.start();
 * const r = await runScenario(loadScenario('scenarios/quickstart.yaml'), { world });
 * await world.close();
 */
export class LabWorld implements ProbeWorld {
  #cluster: MemoryCluster | undefined;
  #settings: ControllerSettings | undefined;
  readonly #nodes = new Map<string, LabNode>();
  readonly #pods = new Map<string, WiredPod>();
  readonly #outsideAgents = new Map<string, Agent>();
  /** An attachment's switch port → the primary port of its pod (one namespace, one agent). */
  readonly #attachmentPods = new Map<string, string>();
  #nextPod = 0;
  #probes = 0;
  #natgw: LabNatGateways | undefined;
  readonly backend: OvnProber;
  readonly chassis: LabChassis;
  private readonly dir: string;
  private readonly cp: ControlPlane;
  private readonly daemons: LabDaemons;
  private readonly wiring: PodWiring;
  private readonly namespaces: Namespaces;
  private readonly names: LabNames;

  private constructor(
    parts: LabParts,
    private readonly opts: LabWorldOptions,
  ) {
    ({
      dir: this.dir,
      cp: this.cp,
      backend: this.backend,
      chassis: this.chassis,
      daemons: this.daemons,
      wiring: this.wiring,
      namespaces: this.namespaces,
      names: this.names,
    } = parts);
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
      cleanup.unshift(() => chassis.stop());
      const daemons = await LabDaemons.start({ host: names.host, dir, ovsRemote: chassis.conf.remote });
      cleanup.unshift(() => daemons.close());
      const wiring = await CniWiring.create((node) => daemons.socketOf(node));
      return new LabWorld({ dir, cp, backend: prober, chassis, daemons, wiring, namespaces, names }, opts);
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

  attach(cluster: MemoryCluster, settings: ControllerSettings): void {
    this.#cluster = cluster;
    this.#settings = settings;
  }

  /** NB compiled, nodes and pods wired as the cluster has them, ovn-controller caught up. */
  async ready(): Promise<void> {
    await this.backend.sync();
    const cluster = this.#cluster;
    if (cluster === undefined) throw new LabError('wiring-failed', 'lab world: ready() before attach(cluster)');
    await this.#syncNodes(cluster);
    await this.#syncPods(cluster);
    await this.#syncNatGateways(cluster);
    await runTool('ovn-nbctl', [`--db=${this.cp.nb.remote}`, '--timeout=60', '--wait=hv', 'sync'], {
      dir: this.dir,
      timeoutMs: 70_000,
    });
  }

  async #syncNodes(cluster: MemoryCluster): Promise<void> {
    const subnets = (await cluster.list('Subnet')).items.map((o) => decodeSubnet(o).value);
    for (const o of (await cluster.list('Node')).items) {
      const n = decodeNode(o).value;
      if (this.#nodes.has(n.name)) continue;
      const d = decodeNodeNetwork(n.annotations);
      if (!d.ok) continue;
      const i = this.#nodes.size;
      const { netns, hostNic } = this.names.node(i);
      await this.namespaces.add(netns);
      // ovn0 by the node agent's set-up, then the node's daemon (daemon-main.ts).
      await this.daemons.addNode({
        name: n.name,
        ovn0: {
          annotations: n.annotations,
          netns: `/run/netns/${netns}`,
          hostIfName: hostNic,
          subnets,
          serviceCidrs: (this.#settings?.serviceClusterIPRange ?? '').split(',').map((c) => c.trim()),
        },
      });
      const node = await LabNode.create({
        spec: { name: n.name, gateways: d.value.gateways },
        netns,
        outside: this.names.outside(i).netns,
        namespaces: this.namespaces,
      });
      this.#nodes.set(n.name, node);
      this.#outsideAgents.set(n.name, await Agent.start(node.outside, `outside@${n.name}`));
    }
    // Subnets a later step adds: routed on ovn0 as Kube-OVN's daemon routes them (the set-up routed the first ones).
    const t = await this.backend.read();
    const router = this.#settings?.clusterRouter ?? 'ovn-cluster';
    const join = this.#settings?.nodeSwitch ?? 'join';
    const cidrs = [...t.routerPort.values()]
      .filter((rp) => rp.router === router && !rp.name.endsWith(`-${join}`))
      .flatMap((rp) => rp.networks.map(networkOf));
    for (const node of this.#nodes.values()) await node.routeCidrs(cidrs);
  }

  async #syncPods(cluster: MemoryCluster): Promise<void> {
    const want = new Map<string, LabPodSpec>();
    for (const o of (await cluster.list('Pod')).items) {
      const p = decodePod(o).value;
      const d = decodePodNetwork(p.annotations);
      if (!d.ok || p.nodeName === '' || !d.value.routed || !this.#nodes.has(p.nodeName)) continue;
      want.set(podPortName(p.name, p.namespace), {
        namespace: p.namespace,
        name: p.name,
        node: p.nodeName,
        annotations: p.annotations,
        network: d.value,
        attachments: attachmentsOf(p),
        object: o,
      });
    }
    for (const [port, w] of this.#pods)
      if (want.get(port) === undefined || signature(want.get(port)!) !== w.signature) await this.#unwire(port, w);
    // The daemons read the pods from their cluster, and their Subnets (an underlay subnet's u2o gateway, as
    // Kube-OVN's daemon reads it at ADD): each is there before its ADD.
    for (const s of (await cluster.list('Subnet')).items) await this.daemons.put(s);
    for (const spec of want.values()) await this.daemons.put(spec.object);
    for (const [port, spec] of want) if (!this.#pods.has(port)) await this.#wire(port, spec);
  }

  /** VPC NAT gateway pods get their external side and iptables rules (natgw.ts). */
  async #syncNatGateways(cluster: MemoryCluster): Promise<void> {
    const objects: Record<string, readonly KubeObject[]> = {};
    for (const k of ['Pod', 'Node', 'Subnet', ...NAT_GATEWAY_KINDS]) objects[k] = (await cluster.list(k)).items;
    if ((objects.VpcNatGateway ?? []).length === 0 || this.#settings === undefined) return;
    const ix = buildIndex(objects, await this.backend.read(), this.#settings);
    this.#natgw ??= new LabNatGateways(this.namespaces, (i) => `kl-${this.names.id}-g${i}`);
    await this.#natgw.sync(ix.natGateways, (port) => this.#pods.get(port)?.at.netns);
  }

  async #wire(port: string, spec: LabPodSpec): Promise<void> {
    const at = this.names.pod(this.#nextPod++);
    await this.namespaces.add(at.netns);
    await this.wiring.add(spec, at);
    // Then each attachment, as Multus calls the plugin once per network with its own ifName and provider.
    for (const a of spec.attachments) await this.wiring.add(spec, at, a);
    const agent = await Agent.start(at.netns, `${spec.namespace}/${spec.name}`);
    this.#pods.set(port, { spec, at, agent, attachments: spec.attachments, signature: signature(spec) });
    for (const a of spec.attachments) this.#attachmentPods.set(a.port, port);
  }

  async #unwire(port: string, w: WiredPod): Promise<void> {
    this.#pods.delete(port);
    for (const a of w.attachments) this.#attachmentPods.delete(a.port);
    await w.agent.close();
    for (const a of w.attachments) await this.wiring.remove(w.spec, w.at, a);
    await this.wiring.remove(w.spec, w.at);
    await this.namespaces.delete(w.at.netns);
    await this.daemons.delete(w.spec.namespace, w.spec.name);
  }

  /** What answer.ts needs of the lab: the agents behind logical ports, the nodes' outside hosts. */
  #ends(): LabEnds {
    return {
      pod: (port) => this.#pods.get(this.#attachmentPods.get(port) ?? port)?.agent,
      multiHomed: (port) => this.#attachmentPods.has(port) || (this.#pods.get(port)?.attachments.length ?? 0) > 0,
      outsideOf: (port) => {
        const node = port.startsWith('node-') ? port.slice(5) : undefined;
        const n = node === undefined ? undefined : this.#nodes.get(node);
        const agent = node === undefined ? undefined : this.#outsideAgents.get(node);
        return n && agent ? { agent, hold: (a) => n.holdOutside(a) } : undefined;
      },
      timeoutMs: this.opts.probeTimeoutMs ?? 2_000,
      token: () => `${this.names.id}-${this.#probes++}`,
      forgetNeighbours: async (netns) => {
        for (const ns of new Set(netns)) await ipIn(ns, 'neigh', 'flush', 'all');
      },
    };
  }

  answer(r: PacketProbe): Promise<ProbeAnswer> {
    const g = r.natGateway;
    const natgw = this.#natgw;
    if (g === undefined) return this.#attachmentUnsure(r).then((u) => u ?? answerProbe(this.#ends(), r));
    if (natgw === undefined) return Promise.resolve({ allowed: false, unsure: 'the lab wired no NAT gateway' });
    const ends = this.#ends();
    if (g.direction === 'egress') {
      // The targets are gateway pods' ports: what counts is the outside behind them, not the pod's own sockets.
      const gwPorts = new Set(r.targets);
      return answerProbe(
        {
          ...ends,
          pod: (port) => (gwPorts.has(port) ? undefined : ends.pod(port)),
          outsideOf: (port) => natgw.outsideOf(port) ?? ends.outsideOf(port),
        },
        r,
      );
    }
    // From the outside host to the EIP, as it sent it; the pod listens where the DNAT sends it.
    const from = `natgw-outside:${g.appliance.port}`;
    const target = r.targets[0]!;
    return answerProbe(
      { ...ends, outsideOf: (port) => (port === from ? natgw.outsideOf(g.appliance.port) : ends.outsideOf(port)) },
      {
        ...r,
        inport: from,
        packet: g.outside,
        endpoints: [{ port: target, targetPort: dstPort(r.packet) ?? 0 }],
      },
    );
  }

  /** A probe from or to a pod's attachment that the pod's own routes keep off it (attachments.ts). */
  async #attachmentUnsure(r: PacketProbe): Promise<ProbeAnswer | undefined> {
    const src = addr(ipSrc(r.packet));
    const dst = addr(ipDst(r.packet));
    for (const [port, own, peer] of [[r.inport, src, dst], ...r.targets.map((t) => [t, dst, src])] as const) {
      const pod = this.#pods.get(this.#attachmentPods.get(port) ?? '');
      const a = pod?.attachments.find((x) => x.port === port);
      if (pod === undefined || a === undefined) continue;
      const why = await attachmentRouteUnsure(pod.at.netns, a, own, peer);
      if (why !== undefined) return { allowed: false, unsure: why };
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.#natgw?.close();
    for (const a of [...this.#outsideAgents.values(), ...[...this.#pods.values()].map((p) => p.agent)])
      await a.close().catch(() => {});
    for (const ns of this.namespaces.live) await this.namespaces.delete(ns);
    await this.daemons.close().catch(() => {});
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

const signature = (p: LabPodSpec): string =>
  [`${p.network.ips.join(',')}|${p.network.mac ?? ''}`, ...p.attachments.map((a) => a.port)].join('|');
