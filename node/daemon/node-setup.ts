/**
 * What the daemon does for its node before it is ready (Kube-OVN's
 * cniserver: InitOVSBridges, then InitNodeGateway, then the node's routes
 * kept by reconcileRouters): the node's Open_vSwitch settings
 * (node/setup configureNodeOvs), then `ovn0` as an OVS internal port in the
 * daemon's own namespace once the controller has written the Node's
 * join-port annotations (planNodeNic + ensureNodeNic), with routes to the
 * default VPC's pod CIDRs and the service CIDRs via the join gateway. The
 * routes are planned again whenever a Subnet or the Node changes, and
 * written when they differ. STATUS answers 50 until all of it is done.
 */
import type { ClusterSource, KubeObject } from '../../kube/cluster/types.ts';
import { decodeSubnet } from '../../kube/objects/kubeovn.ts';
import type { Clock } from '../../kube/runtime/clock.ts';
import { Informer } from '../../kube/runtime/informer.ts';
import type { Netlink } from '../netlink/types.ts';
import type { Vswitch } from '../ovs/index.ts';
import {
  type DatapathProfile,
  type NodeNicPlan,
  type SetupIssue,
  configureNodeOvs,
  ensureNodeNic,
  planNodeNic,
  readProfile,
} from '../setup/index.ts';

/** Kube-OVN's --service-cluster-ip-range default. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';

export interface NodeSetupConfig {
  /** `external_ids:system-id`; default the node's name. */
  readonly systemId?: string;
  /** The SB database ovn-controller connects to, e.g. `tcp:172.18.0.1:6642`. */
  readonly ovnRemote: string;
  /** The address other chassis tunnel to. */
  readonly encapIp: string;
  /** Default `geneve` (Kube-OVN's --network-type default). */
  readonly encapType?: string;
  /** Default [DEFAULT_SERVICE_CIDR]; one per family. */
  readonly serviceCidrs?: readonly string[];
  /** How long to wait for the Node's join-port annotations; default 60 s. */
  readonly nodeTimeoutMs?: number;
}

export interface NodeSetupContext {
  readonly node: string;
  readonly cluster: ClusterSource;
  readonly vs: Vswitch;
  readonly netlink: Netlink;
  readonly clock: Clock;
  readonly bridge: string;
  readonly mtu: number;
  /** Undefined: br-int's as the database says, else `system` (Kube-OVN's default datapath). */
  readonly profile: DatapathProfile | undefined;
  /** False against a bare ovsdb-server (no vswitchd to wait for). */
  readonly waitApplied: boolean;
  readonly log: (line: string) => void;
}

export type NodeSetupErrorCode = 'node-timeout';

export class NodeSetupError extends Error {
  override readonly name = 'NodeSetupError';
  constructor(
    readonly code: NodeSetupErrorCode,
    message: string,
    readonly issue?: SetupIssue,
  ) {
    super(message);
  }
}

type Phase =
  | { readonly kind: 'pending'; readonly what: string }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly error: Error };

const internalIpsOf = (node: KubeObject | undefined): string[] => {
  const addrs = (node?.status as { addresses?: { type?: unknown; address?: unknown }[] } | undefined)?.addresses;
  return (addrs ?? []).flatMap((a) => (a.type === 'InternalIP' && typeof a.address === 'string' ? [a.address] : []));
};

/**
 * @example
 * const setup = new NodeSetup(ctx, { ovnRemote: 'tcp:172.18.0.1:6642', encapIp: '172.18.0.2' });
 * await setup.run(); // settings written, ovn0 up with its routes
 * setup.pending();   // undefined once done; else what it is waiting for
 */
export class NodeSetup {
  readonly #ctx: NodeSetupContext;
  readonly #cfg: NodeSetupConfig;
  readonly #nodes: Informer;
  readonly #subnets: Informer;
  #phase: Phase = { kind: 'pending', what: 'not started' };
  #applied: string | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(ctx: NodeSetupContext, cfg: NodeSetupConfig) {
    this.#ctx = ctx;
    this.#cfg = cfg;
    const onError = (e: unknown) => ctx.log(`node set-up: ${String(e)}`);
    this.#nodes = new Informer(ctx.cluster, 'Node', { clock: ctx.clock, onError });
    this.#subnets = new Informer(ctx.cluster, 'Subnet', { clock: ctx.clock, onError });
    const changed = () => {
      if (this.#phase.kind === 'done') this.#reapply();
    };
    for (const inf of [this.#nodes, this.#subnets])
      inf.addHandlers({ onAdd: changed, onUpdate: changed, onDelete: changed });
  }

  /** Why the node is not ready yet (the STATUS message), or undefined when it is. */
  pending(): string | undefined {
    const p = this.#phase;
    if (p.kind === 'done') return undefined;
    return p.kind === 'pending' ? `node set-up: ${p.what}` : `node set-up failed: ${p.error.message}`;
  }

  /** The Open_vSwitch settings, then ovn0 once the Node is annotated; rejects (and stays failed) on a timeout. */
  async run(): Promise<void> {
    const { ctx, cfg } = { ctx: this.#ctx, cfg: this.#cfg };
    try {
      this.#phase = { kind: 'pending', what: 'writing the Open_vSwitch settings' };
      const profile = ctx.profile ?? readProfile(ctx.vs, ctx.bridge) ?? 'system';
      const ovs = {
        systemId: cfg.systemId ?? ctx.node,
        hostname: ctx.node,
        ovnRemote: cfg.ovnRemote,
        encapType: cfg.encapType ?? 'geneve',
        encapIp: cfg.encapIp,
        profile,
        bridge: ctx.bridge,
      };
      await configureNodeOvs(ctx.vs, ovs, { waitApplied: ctx.waitApplied });
      ctx.log(
        `node ${ctx.node}: Open_vSwitch set (system-id ${ovs.systemId}, ${ovs.encapType} ${ovs.encapIp}, ${profile})`,
      );
      this.#phase = { kind: 'pending', what: `waiting for Node ${ctx.node}'s join-port annotations` };
      await Promise.all([this.#nodes.start(), this.#subnets.start()]);
      const plan = await this.#waitPlan();
      await this.#apply(plan, profile);
      this.#phase = { kind: 'done' };
      // A change between the plan and now found the phase pending: look once more.
      this.#reapply();
    } catch (e) {
      this.#phase = { kind: 'failed', error: e instanceof Error ? e : new Error(String(e)) };
      throw e;
    }
  }

  /** Resolves once every apply started so far has ended (tests). */
  settled(): Promise<void> {
    return this.#chain;
  }

  stop(): void {
    this.#nodes.stop();
    this.#subnets.stop();
  }

  #plan() {
    const node = this.#nodes.list().find((n) => n.metadata.name === this.#ctx.node);
    const subnets = this.#subnets.list().map((o) => decodeSubnet(o).value);
    return planNodeNic({
      node: this.#ctx.node,
      annotations: node?.metadata.annotations ?? {},
      mtu: this.#ctx.mtu,
      subnets,
      serviceCidrs: this.#cfg.serviceCidrs ?? [DEFAULT_SERVICE_CIDR],
      internalIps: internalIpsOf(node),
    });
  }

  /** The plan as soon as the Node's annotations allow one, woken by its changes; bounded. */
  #waitPlan(): Promise<NodeNicPlan> {
    const ms = this.#cfg.nodeTimeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (f: () => void) => {
        if (done) return;
        done = true;
        this.#ctx.clock.clearTimeout(timer);
        off();
        f();
      };
      const check = () => {
        const p = this.#plan();
        if (p.ok) finish(() => resolve(p.value));
      };
      const timer = this.#ctx.clock.setTimeout(() => {
        const p = this.#plan();
        const why = p.ok ? 'planned too late' : `${p.issue.path}: ${p.issue.message}`;
        const msg = `node ${this.#ctx.node}: no ovn0 after ${ms} ms waiting for the controller's annotations (${why})`;
        finish(() => reject(new NodeSetupError('node-timeout', msg, p.ok ? undefined : p.issue)));
      }, ms);
      const off = this.#nodes.addHandlers({ onAdd: check, onUpdate: check });
      check();
    });
  }

  async #apply(plan: NodeNicPlan, profile: DatapathProfile): Promise<void> {
    const ctx = this.#ctx;
    await ensureNodeNic(
      { vs: ctx.vs, netlink: ctx.netlink, profile, bridge: ctx.bridge, commit: { waitApplied: ctx.waitApplied } },
      plan,
      { kind: 'internal' },
    );
    this.#applied = JSON.stringify(plan);
    const routes = plan.routes.map((r) => `${r.dst} via ${r.gw}`).join(', ');
    ctx.log(`node ${ctx.node}: ${plan.name} ${plan.addresses.join(' ')} (${plan.ifaceId}); routes ${routes || 'none'}`);
    for (const u of plan.unrouted) ctx.log(`node ${ctx.node}: ${u.dst} not routed via ${plan.name}: ${u.reason}`);
  }

  /** Plans again and, when the plan changed, makes ovn0 anew; one at a time. */
  #reapply(): void {
    this.#chain = this.#chain.then(async () => {
      const p = this.#plan();
      if (!p.ok)
        return this.#ctx.log(`node ${this.#ctx.node}: ovn0 left as it was: ${p.issue.path}: ${p.issue.message}`);
      if (JSON.stringify(p.value) === this.#applied) return;
      const profile = this.#ctx.profile ?? readProfile(this.#ctx.vs, this.#ctx.bridge) ?? 'system';
      await this.#apply(p.value, profile).catch((e) => this.#ctx.log(`node ${this.#ctx.node}: ovn0: ${String(e)}`));
    });
  }
}
