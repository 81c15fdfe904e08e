/**
 * The node agent behind the daemon's socket: one request in, one response
 * out (node/cni/protocol.ts). ADD, DEL, CHECK, STATUS and GC as CNI 1.1
 * defines them, requests on one container interface taken one at a time,
 * and the sweep a (re)started daemon runs: what the database records for
 * pods that are gone, or whose namespace is gone, is removed.
 */
import { stat } from 'node:fs/promises';
import { OvsdbClientError, OvsdbServerError } from '../../backends/ovn/ovsdb/index.ts';
import { CNI_ERROR, type DaemonRequest, type DaemonResponse } from '../cni/protocol.ts';
import { NetlinkError, type Netlink } from '../netlink/types.ts';
import { INTEGRATION_BRIDGE, OvsError, deletePortOps, findPort, getPort, type Vswitch } from '../ovs/index.ts';
import { addAttachment } from './add.ts';
import { type Attachment, attachmentOf, attachmentsOf, findAttachment } from './attachments.ts';
import { checkAttachment } from './check.ts';
import type { AgentContext, OvsWait } from './context.ts';
import { DaemonError } from './errors.ts';
import { hostNicName } from './names.ts';
import type { PodWatch } from './pod-watch.ts';
import { bandwidthMatches, bandwidthOf, bandwidthOps, deleteQosOps, portQos } from './qos.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { type DatapathProfile, SYSFS_ROOT } from '../setup/index.ts';

export interface NodeAgentOptions {
  readonly node: string;
  readonly vswitch: Vswitch;
  readonly netlink: Netlink;
  readonly pods: PodWatch;
  /** Default br-int. */
  readonly bridge?: string;
  /** The pod interfaces' MTU; default 1400 (Kube-OVN: a 1500 node link less the Geneve overhead). */
  readonly mtu?: number;
  /** A subnet's own MTU (`spec.mtu`), which wins; default: none. */
  readonly subnetMtu?: (subnet: string) => Promise<number | undefined>;
  /** An underlay subnet's u2o gateway(s) while u2oInterconnection is on; default: none. */
  readonly subnetU2oGateways?: (subnet: string) => Promise<readonly string[] | undefined>;
  /** How long ADD waits for `allocated`/`routed`; default 20 s (Kube-OVN: 20 tries a second apart). */
  readonly annotationTimeoutMs?: number;
  /** How long ADD waits for ovn-installed (or cur_cfg); default 30 s, as Kube-OVN. */
  readonly installTimeoutMs?: number;
  /** Default `installed`. */
  readonly wait?: OvsWait;
  /** Whether a namespace path still exists (default: it can be stat'ed). */
  readonly netnsExists?: (path: string) => Promise<boolean>;
  readonly log?: (line: string) => void;
  /** The node's datapath profile (node/setup); default: read from the database (node/setup readProfile). */
  readonly profile?: DatapathProfile;
  /** Default /sys. */
  readonly sysfsRoot?: string;
  /** Default /var/run/openvswitch/vhost_sockets (Kube-OVN's DefaultHostVhostuserBaseDir). */
  readonly vhostSocketDir?: string;
  /** What the node's set-up still waits for (STATUS answers 50 with it), undefined once done; default: nothing. */
  readonly setupPending?: () => string | undefined;
}

const statExists = async (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** An exception as the CNI error body: typed failures keep their kind, anything else is an I/O failure. */
export function errorBody(e: unknown, cniVersion: string): DaemonResponse {
  if (e instanceof DaemonError) return { ok: false, error: e.body(cniVersion) };
  const msg = e instanceof Error ? e.message : String(e);
  const code =
    e instanceof NetlinkError
      ? CNI_ERROR.netlinkFailure
      : e instanceof OvsError || e instanceof OvsdbServerError || e instanceof OvsdbClientError
        ? CNI_ERROR.ovsFailure
        : CNI_ERROR.ioFailure;
  return { ok: false, error: { cniVersion, code, msg } };
}

/**
 * @example
 * const agent = new NodeAgent({ node: 'kube-node-1', vswitch: vs, netlink, pods });
 * await agent.sweep();
 * const res = await agent.handle(request); // { ok: true, result } or { ok: false, error }
 */
export class NodeAgent {
  readonly ctx: AgentContext;
  readonly #netnsExists: (path: string) => Promise<boolean>;
  readonly #setupPending: () => string | undefined;
  /** Container interface → the tail of its request chain. */
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(opts: NodeAgentOptions) {
    this.#netnsExists = opts.netnsExists ?? statExists;
    this.#setupPending = opts.setupPending ?? (() => undefined);
    const log = opts.log ?? (() => {});
    this.ctx = {
      node: opts.node,
      vs: opts.vswitch,
      netlink: opts.netlink,
      pods: opts.pods,
      bridge: opts.bridge ?? INTEGRATION_BRIDGE,
      mtu: opts.mtu ?? 1400,
      subnetMtu: opts.subnetMtu ?? (async () => undefined),
      ...(opts.subnetU2oGateways ? { subnetU2oGateways: opts.subnetU2oGateways } : {}),
      annotationTimeoutMs: opts.annotationTimeoutMs ?? 20_000,
      installTimeoutMs: opts.installTimeoutMs ?? 30_000,
      wait: opts.wait ?? 'installed',
      log,
      profile: opts.profile,
      sysfsRoot: opts.sysfsRoot ?? SYSFS_ROOT,
      vhostSocketDir: opts.vhostSocketDir ?? '/var/run/openvswitch/vhost_sockets',
      detach: (port) => this.#detach(port),
      removeStale: (ifaceId, hostNic) => this.#removeStale(ifaceId, hostNic),
    };
  }

  /** Serves one request; never throws. */
  async handle(req: DaemonRequest): Promise<DaemonResponse> {
    try {
      switch (req.command) {
        case 'ADD':
          return { ok: true, result: await this.#locked(req, () => addAttachment(this.ctx, req)) };
        case 'DEL':
          await this.#locked(req, () => this.#del(req));
          return { ok: true };
        case 'CHECK':
          await this.#locked(req, () => checkAttachment(this.ctx, req));
          return { ok: true };
        case 'STATUS':
          this.#status();
          return { ok: true };
        case 'GC':
          await this.gc(req.validAttachments ?? [], req.network);
          return { ok: true };
        default:
          throw new DaemonError(
            CNI_ERROR.invalidConfig,
            `command ${JSON.stringify(req.command)}: not one the daemon serves`,
          );
      }
    } catch (e) {
      return errorBody(e, req.cniVersion);
    }
  }

  /**
   * Removes every attachment of `network` not listed (CNI 1.1 GC:
   * `cni.dev/valid-attachments` names the network's attachments to keep);
   * without a network, of every network. Returns those removed.
   */
  async gc(valid: readonly { containerId: string; ifName: string }[], network?: string): Promise<Attachment[]> {
    const keep = new Set(valid.map((v) => `${v.containerId}\u0000${v.ifName}`));
    const ours = (a: Attachment) => !network || a.network === undefined || a.network === network;
    const gone = attachmentsOf(this.ctx.vs).filter((a) => ours(a) && !keep.has(`${a.containerId}\u0000${a.ifName}`));
    return this.#remove(gone, 'not a valid attachment');
  }

  /**
   * What a (re)started daemon runs once its pods are listed: removes the
   * attachments whose pod is gone (or was made again: another uid) or
   * whose namespace is gone; returns them.
   */
  async sweep(): Promise<Attachment[]> {
    const gone: Attachment[] = [];
    for (const a of attachmentsOf(this.ctx.vs)) {
      const pod = this.ctx.pods.get(a.namespace, a.pod);
      const stale = pod === undefined || (a.podUid !== undefined && pod.metadata.uid !== a.podUid);
      if (stale || !(await this.#netnsExists(a.netns))) gone.push(a);
    }
    return this.#remove(gone, 'pod or namespace gone');
  }

  /**
   * Applies the pod's bandwidth annotations again to its attachments here,
   * when they changed (Kube-OVN's daemon does on a pod update).
   */
  async refreshBandwidth(pod: KubeObject): Promise<void> {
    const { name, namespace = '' } = pod.metadata;
    for (const a of attachmentsOf(this.ctx.vs)) {
      if (a.pod !== name || a.namespace !== namespace) continue;
      const bw = bandwidthOf(pod.metadata.annotations ?? {}, a.provider);
      if (!bw.ok) {
        this.ctx.log(`pod ${namespace}/${name}: ${bw.issue.message}; bandwidth left as it was`);
        continue;
      }
      await this.#lockedKey(`${a.containerId}/${a.ifName}`, async () => {
        if (bandwidthMatches(this.ctx.vs, a.hostNic, bw.value)) return;
        const target = { port: a.hostNic, ifaceId: a.ifaceId, pod: `${namespace}/${name}` };
        await this.ctx.vs.commit(bandwidthOps(this.ctx.vs, target, bw.value));
      });
    }
  }

  async #remove(list: readonly Attachment[], why: string): Promise<Attachment[]> {
    for (const a of list) {
      await this.#lockedKey(`${a.containerId}/${a.ifName}`, () => this.#detach(a.hostNic));
      this.ctx.log(`removed ${a.namespace}/${a.pod} container ${a.containerId} ${a.ifName} (${a.hostNic}): ${why}`);
    }
    return [...list];
  }

  async #del(req: DaemonRequest): Promise<void> {
    if (!req.containerId || !req.ifName)
      throw new DaemonError(CNI_ERROR.invalidEnvironment, 'DEL: CNI_CONTAINERID and CNI_IFNAME are required');
    const named = hostNicName(req.containerId, req.ifName);
    const a = findAttachment(this.ctx.vs, req.containerId, req.ifName);
    await this.#detach(a?.hostNic ?? named);
    if (a !== undefined && a.hostNic !== named) await this.ctx.netlink.deleteLink(named);
  }

  #status(): void {
    const setup = this.#setupPending();
    if (setup !== undefined) throw new DaemonError(CNI_ERROR.notAvailable, `node ${this.ctx.node}: ${setup}`);
    if (!this.ctx.pods.hasSynced())
      throw new DaemonError(CNI_ERROR.notAvailable, `node ${this.ctx.node}: the pod informer has not listed yet`);
    const state = this.ctx.vs.session.state;
    if (state !== 'synced')
      throw new DaemonError(CNI_ERROR.notAvailable, `node ${this.ctx.node}: the Open_vSwitch database is ${state}`);
    if (this.ctx.vs.bridge(this.ctx.bridge) === undefined)
      throw new DaemonError(CNI_ERROR.notAvailable, `node ${this.ctx.node}: bridge ${this.ctx.bridge} does not exist`);
  }

  async #detach(port: string): Promise<void> {
    const vs = this.ctx.vs;
    const nl = this.ctx.netlink;
    const iface = vs.cache.lookup('Interface', 'name', port)[0];
    const a = iface === undefined ? undefined : attachmentOf(iface);
    const kind = a?.kind ?? 'veth';
    // A VF representor goes down before it leaves br-int (Kube-OVN, after ovn-kubernetes #6106).
    if (kind === 'vf' && nl.configureHostLink && (await nl.listLinks((n) => n === port)).length > 0)
      await nl.configureHostLink({ name: port, up: false });
    const { qos } = portQos(vs, port);
    // The port lets go of its QoS first: ovsdb-server checks references before it collects the removed port.
    const qosOps =
      qos === undefined
        ? []
        : [vs.ops.update('Port', [['name', '==', port]], { qos: undefined }), ...deleteQosOps(vs, qos)];
    const ops = [...qosOps, ...deletePortOps(vs, port)];
    if (ops.length > 0) await vs.commit(ops);
    if (kind === 'veth') await nl.deleteLink(port);
    if (kind === 'vf' && a?.vfNetdev !== undefined && nl.releasePodLink)
      await nl.releasePodLink(a.netns, a.ifName, a.vfNetdev);
  }

  async #removeStale(ifaceId: string, hostNic: string): Promise<void> {
    for (let other = findPort(this.ctx.vs, ifaceId); other !== undefined; other = findPort(this.ctx.vs, ifaceId)) {
      this.ctx.log(`port ${other.port.name}: an earlier sandbox's port for ${ifaceId}, removed`);
      await this.#detach(other.port.name);
    }
    if (getPort(this.ctx.vs, hostNic) !== undefined) await this.#detach(hostNic);
  }

  #locked<T>(req: DaemonRequest, f: () => Promise<T>): Promise<T> {
    return this.#lockedKey(`${req.containerId}/${req.ifName}`, f);
  }

  #lockedKey<T>(key: string, f: () => Promise<T>): Promise<T> {
    const prev = this.#locks.get(key) ?? Promise.resolve();
    const run = prev.then(f, f);
    const tail = run.catch(() => {});
    this.#locks.set(key, tail);
    void tail.then(() => {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    });
    return run;
  }
}
