/**
 * RecordingNetlink: the Netlink interface without a kernel. It keeps every
 * request in order (what a kernel, DPDK or offload node would ask of
 * rtnetlink, for the profile tests) and a small model of the links it made,
 * so that inspect, list and delete answer as RtNetlink would: the same
 * validation, EXISTS, NETNS_GONE, idempotent delete, and a namespace's
 * removal taking its pairs with it. The conformance suite (conformance.ts)
 * runs the same cases against both.
 */
import { formatCIDR, formatIP, parseCIDR, parseIP } from '../../model/addr/index.ts';
import { planPodLink } from './request.ts';
import { type Netlink, NetlinkError, type PodLink, type PodLinkState } from './types.ts';

/** One call on the interface, as it was made. */
export type NetlinkRequest =
  | { readonly op: 'addPodLink'; readonly link: PodLink }
  | { readonly op: 'deleteLink'; readonly name: string }
  | { readonly op: 'listLinks' }
  | { readonly op: 'inspectPodLink'; readonly netns: string; readonly ifName: string };

export interface RecordingNetlinkOptions {
  /**
   * The namespaces that exist at the start; default: every path exists
   * until {@link RecordingNetlink.removeNetns} says otherwise.
   */
  readonly netns?: readonly string[];
  /** An error to answer a request with instead (fault injection); the request is recorded either way. */
  readonly fail?: (req: NetlinkRequest) => NetlinkError | undefined;
}

interface Made {
  readonly link: PodLink;
  readonly index: number;
}

/**
 * @example
 * const nl = new RecordingNetlink();
 * await nl.addPodLink(link);
 * nl.requests; // [{ op: 'addPodLink', link }]
 * await nl.inspectPodLink(link.netns, link.ifName); // { ifName: 'eth0', mac: ..., up: true, ... }
 */
export class RecordingNetlink implements Netlink {
  /** Every request, in the order made, failed ones included. */
  readonly requests: NetlinkRequest[] = [];
  private readonly made = new Map<string, Made>();
  private readonly known: Set<string> | undefined;
  private readonly removed = new Set<string>();
  private readonly fail: RecordingNetlinkOptions['fail'];
  /** Interface indexes as a kernel hands them out (1 is lo). */
  private nextIndex = 2;

  constructor(opts: RecordingNetlinkOptions = {}) {
    this.known = opts.netns === undefined ? undefined : new Set(opts.netns);
    this.fail = opts.fail;
  }

  /** Makes a namespace path exist (when the recorder was given a list). */
  addNetns(path: string): void {
    this.removed.delete(path);
    this.known?.add(path);
  }

  /** The namespace goes away, and with it every pair whose pod end was in it (as the kernel does). */
  removeNetns(path: string): void {
    this.removed.add(path);
    this.known?.delete(path);
    for (const [name, m] of this.made) if (m.link.netns === path) this.made.delete(name);
  }

  /** The pod links that exist now, by host name. */
  links(): readonly PodLink[] {
    return [...this.made.values()].map((m) => m.link);
  }

  private exists(netns: string): boolean {
    return !this.removed.has(netns) && (this.known === undefined || this.known.has(netns));
  }

  private record(req: NetlinkRequest): void {
    this.requests.push(req);
    const e = this.fail?.(req);
    if (e !== undefined) throw e;
  }

  async addPodLink(l: PodLink): Promise<void> {
    this.record({ op: 'addPodLink', link: l });
    const what = `pod link ${l.hostIfName} -> ${l.ifName} in ${l.netns}`;
    const planned = planPodLink(l);
    if (!planned.ok) {
      const text = planned.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
      throw new NetlinkError('INVALID', `${what}: ${text}`, planned.problems);
    }
    if (!this.exists(l.netns)) throw new NetlinkError('NETNS_GONE', `${what}: ${l.netns} does not exist`);
    if (this.made.has(l.hostIfName))
      throw new NetlinkError('EXISTS', `${what}: host link ${l.hostIfName} already exists`);
    if ([...this.made.values()].some((m) => m.link.netns === l.netns && m.link.ifName === l.ifName)) {
      throw new NetlinkError('EXISTS', `${what}: ${l.ifName} in ${l.netns} already exists`);
    }
    this.made.set(l.hostIfName, { link: l, index: this.nextIndex++ });
  }

  async deleteLink(name: string): Promise<boolean> {
    this.record({ op: 'deleteLink', name });
    return this.made.delete(name);
  }

  async listLinks(filter?: (name: string) => boolean): Promise<{ name: string; index: number; kind?: string }[]> {
    this.record({ op: 'listLinks' });
    return [...this.made.values()]
      .filter((m) => filter === undefined || filter(m.link.hostIfName))
      .map((m) => ({ name: m.link.hostIfName, index: m.index, kind: 'veth' }));
  }

  async inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined> {
    this.record({ op: 'inspectPodLink', netns, ifName });
    if (!this.exists(netns)) return undefined;
    const m = [...this.made.values()].find((x) => x.link.netns === netns && x.link.ifName === ifName);
    if (m === undefined) return undefined;
    // The text a kernel would give back: canonical forms (the link was validated when added).
    const l = m.link;
    return {
      ifName,
      mac: l.mac.toLowerCase(),
      mtu: l.mtu,
      up: true,
      addresses: l.addresses.map((a) => formatCIDR(parseCIDR(a))),
      routes: l.routes.map((r) => {
        const dst = r.dst === 'default' ? 'default' : formatCIDR(parseCIDR(r.dst));
        return r.gw === undefined ? { dst } : { dst, gw: formatIP(parseIP(r.gw)) };
      }),
    };
  }
}
