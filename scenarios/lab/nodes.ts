/**
 * A scenario node in the lab: a network namespace standing for its host
 * network, with `ovn0` (Kube-OVN's node port `node-<node>` on the join
 * switch, made by the node agent's set-up: node/setup), and behind it a
 * namespace of outside hosts (a link 169.254.250.0/30 and fd00:a9fe:250::/126:
 * the node's default routes; the outside's default routes back to the node),
 * which takes every outside address a probe names. The node forwards between
 * the two as a host does, source addresses unchanged (no masquerade: the
 * outside network routes replies back to whatever source it sees).
 */
import { ipIn, type Namespaces, sysctlIn } from './host.ts';

export interface LabNodeSpec {
  readonly name: string;
  /** The join gateways (one per family). */
  readonly gateways: readonly string[];
}

const LINK_NODE = '169.254.250.1';
const LINK_OUTSIDE = '169.254.250.2';
/** The same link's IPv6 (a ULA no scenario is expected to name). */
const LINK6_NODE = 'fd00:a9fe:250::1';
const LINK6_OUTSIDE = 'fd00:a9fe:250::2';

const isV6 = (a: string) => a.includes(':');

/**
 * @example
 * const n = await LabNode.create({ spec, netns: 'kl-Ab12Cd-n0', outside: 'kl-Ab12Cd-o0', namespaces });
 * await n.routeCidrs(['10.16.0.0/16', '10.96.0.0/12']);
 */
export class LabNode {
  readonly #outsideAddrs = new Set<string>();
  readonly #routes = new Set<string>();

  private constructor(
    readonly spec: LabNodeSpec,
    readonly netns: string,
    readonly outside: string,
  ) {}

  /**
   * The node's namespace once its `ovn0` is made (by the node agent: node/setup's veth form, see
   * daemon-main.ts): the outside hosts behind it, forwarding on.
   */
  static async create(opts: {
    readonly spec: LabNodeSpec;
    readonly netns: string;
    readonly outside: string;
    readonly namespaces: Namespaces;
  }): Promise<LabNode> {
    const { netns, outside } = opts;
    await opts.namespaces.add(outside);
    await ipIn(netns, 'link', 'add', 'ext0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', outside);
    await ipIn(netns, 'addr', 'add', `${LINK_NODE}/30`, 'dev', 'ext0');
    await ipIn(outside, 'addr', 'add', `${LINK_OUTSIDE}/30`, 'dev', 'eth0');
    await ipIn(netns, 'addr', 'add', `${LINK6_NODE}/126`, 'dev', 'ext0', 'nodad');
    await ipIn(outside, 'addr', 'add', `${LINK6_OUTSIDE}/126`, 'dev', 'eth0', 'nodad');
    await ipIn(netns, 'link', 'set', 'ext0', 'up');
    await ipIn(outside, 'link', 'set', 'eth0', 'up');
    await ipIn(netns, 'route', 'add', 'default', 'via', LINK_OUTSIDE);
    await ipIn(outside, 'route', 'add', 'default', 'via', LINK_NODE);
    await ipIn(netns, '-6', 'route', 'add', 'default', 'via', LINK6_OUTSIDE);
    await ipIn(outside, '-6', 'route', 'add', 'default', 'via', LINK6_NODE);
    for (const [ns, key, value] of [
      [netns, 'net.ipv4.ip_forward', '1'],
      [netns, 'net.ipv6.conf.all.forwarding', '1'],
      [netns, 'net.ipv4.conf.all.rp_filter', '0'],
      [netns, 'net.ipv4.conf.default.rp_filter', '0'],
      [outside, 'net.ipv4.conf.all.rp_filter', '0'],
    ] as const)
      await sysctlIn(ns, key, value);
    return new LabNode(opts.spec, netns, outside);
  }

  /** Routes each CIDR via the join gateway of its family on `ovn0` (Kube-OVN's routes to pod and service CIDRs). */
  async routeCidrs(cidrs: readonly string[]): Promise<void> {
    for (const c of cidrs) {
      if (this.#routes.has(c)) continue;
      const gw = this.spec.gateways.find((g) => isV6(g) === isV6(c));
      if (gw === undefined) continue;
      await ipIn(this.netns, 'route', 'replace', c, 'via', gw, 'dev', 'ovn0');
      this.#routes.add(c);
    }
  }

  /** An outside address held by this node's outside namespace (idempotent). */
  async holdOutside(addr: string): Promise<void> {
    if (this.#outsideAddrs.has(addr)) return;
    await ipIn(this.outside, 'addr', 'add', `${addr}/${isV6(addr) ? 128 : 32}`, 'dev', 'lo');
    this.#outsideAddrs.add(addr);
  }
}
