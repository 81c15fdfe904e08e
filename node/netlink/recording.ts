/**
 * RecordingNetlink: the Netlink interface without a kernel. It keeps every
 * request in order (what a kernel, DPDK or offload node would ask of
 * rtnetlink, for the profile tests) and a small model of the links, so
 * that inspect, list, delete and the optional methods answer as RtNetlink
 * would: the same validation, EXISTS, NETNS_GONE, idempotent delete, a
 * namespace's removal taking its veth pairs with it (and handing a moved
 * physical link back to the host, as the kernel does). The conformance
 * suite (conformance.ts) runs the same cases against both.
 */
import { formatCIDR, formatIP, parseCIDR, parseIP } from '../../model/addr/index.ts';
import { type LinkProblem, planHostLink, planMovedLink, planPodLink } from './request.ts';
import {
  type HostLinkConfig,
  type LinkRoute,
  type MovedPodLink,
  type Netlink,
  NetlinkError,
  type PodLink,
  type PodLinkState,
} from './types.ts';

/** One call on the interface, as it was made. */
export type NetlinkRequest =
  | { readonly op: 'addPodLink'; readonly link: PodLink }
  | { readonly op: 'deleteLink'; readonly name: string }
  | { readonly op: 'listLinks' }
  | { readonly op: 'inspectPodLink'; readonly netns: string; readonly ifName: string }
  | { readonly op: 'configureHostLink'; readonly config: HostLinkConfig }
  | { readonly op: 'movePodLink'; readonly link: MovedPodLink }
  | { readonly op: 'releasePodLink'; readonly netns: string; readonly ifName: string; readonly name: string };

export interface RecordingNetlinkOptions {
  /**
   * The namespaces that exist at the start; default: every path exists
   * until {@link RecordingNetlink.removeNetns} says otherwise.
   */
  readonly netns?: readonly string[];
  /** Host links that exist at the start (a node's NICs and VFs). */
  readonly hostLinks?: readonly string[];
  /** An error to answer a request with instead (fault injection); the request is recorded either way. */
  readonly fail?: (req: NetlinkRequest) => NetlinkError | undefined;
}

type Route = LinkRoute;

/** A link as the model keeps it; `peer` links the two ends of a veth made by addPodLink. */
interface Link {
  readonly index: number;
  kind?: string;
  mac?: string;
  mtu?: number;
  up: boolean;
  addresses: string[];
  routes: Route[];
  /** For a veth end: the other end's key. */
  peer?: string;
  /** For a pod end: the PodLink it was made from (links()). */
  made?: PodLink;
}

const podKey = (netns: string, ifName: string) => `${netns}\u0000${ifName}`;
const canonCidr = (a: string) => formatCIDR(parseCIDR(a));
const canonRoute = (r: Route): Route => ({
  dst: r.dst === 'default' ? 'default' : canonCidr(r.dst),
  ...(r.gw === undefined ? {} : { gw: formatIP(parseIP(r.gw)) }),
  ...(r.src === undefined ? {} : { src: formatIP(parseIP(r.src)) }),
});

function invalid(what: string, problems: readonly LinkProblem[]): NetlinkError {
  return new NetlinkError('INVALID', `${what}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, problems);
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
  /** Host links by name. */
  private readonly host = new Map<string, Link>();
  /** Links inside namespaces, by podKey. */
  private readonly pod = new Map<string, Link>();
  private readonly known: Set<string> | undefined;
  private readonly removed = new Set<string>();
  private readonly fail: RecordingNetlinkOptions['fail'];
  /** Interface indexes as a kernel hands them out (1 is lo). */
  private nextIndex = 2;

  constructor(opts: RecordingNetlinkOptions = {}) {
    this.known = opts.netns === undefined ? undefined : new Set(opts.netns);
    this.fail = opts.fail;
    for (const name of opts.hostLinks ?? []) this.addHostLink(name);
  }

  /** A host link appears (a NIC, a VF). */
  addHostLink(name: string, kind?: string): void {
    this.host.set(name, {
      index: this.nextIndex++,
      ...(kind === undefined ? {} : { kind }),
      up: false,
      addresses: [],
      routes: [],
    });
  }

  /** Makes a namespace path exist (when the recorder was given a list). */
  addNetns(path: string): void {
    this.removed.delete(path);
    this.known?.add(path);
  }

  /**
   * The namespace goes away: veth pairs with an end in it go, other links in
   * it come back to the host under their name there (or `dev<index>` when the
   * name is taken), down and bare.
   */
  removeNetns(path: string): void {
    this.removed.add(path);
    this.known?.delete(path);
    for (const [key, l] of this.pod) {
      if (!key.startsWith(`${path}\u0000`)) continue;
      this.pod.delete(key);
      if (l.peer !== undefined) this.host.delete(l.peer);
      else {
        const name = key.slice(path.length + 1);
        this.host.set(this.host.has(name) ? `dev${l.index}` : name, { ...l, up: false, addresses: [], routes: [] });
      }
    }
  }

  /** The veth pod links made by addPodLink that exist now. */
  links(): readonly PodLink[] {
    return [...this.pod.values()].flatMap((l) => (l.made === undefined ? [] : [l.made]));
  }

  /** Host link names that exist now. */
  hostLinks(): readonly string[] {
    return [...this.host.keys()];
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
    if (!planned.ok) throw invalid(what, planned.problems);
    if (!this.exists(l.netns)) throw new NetlinkError('NETNS_GONE', `${what}: ${l.netns} does not exist`);
    if (this.host.has(l.hostIfName))
      throw new NetlinkError('EXISTS', `${what}: host link ${l.hostIfName} already exists`);
    const key = podKey(l.netns, l.ifName);
    if (this.pod.has(key)) throw new NetlinkError('EXISTS', `${what}: ${l.ifName} in ${l.netns} already exists`);
    const base = { kind: 'veth', mtu: l.mtu, up: true };
    this.host.set(l.hostIfName, { ...base, index: this.nextIndex++, addresses: [], routes: [], peer: key });
    const addresses = l.addresses.map(canonCidr);
    const routes = l.routes.map(canonRoute);
    const podEnd = { ...base, index: this.nextIndex++, mac: l.mac.toLowerCase(), addresses, routes };
    this.pod.set(key, { ...podEnd, peer: l.hostIfName, made: l });
  }

  async deleteLink(name: string): Promise<boolean> {
    this.record({ op: 'deleteLink', name });
    const l = this.host.get(name);
    if (l === undefined) return false;
    this.host.delete(name);
    // The other end of a veth goes with it, in a namespace or (released there) in the host.
    if (l.peer !== undefined && !this.pod.delete(l.peer) && this.host.get(l.peer)?.peer === name)
      this.host.delete(l.peer);
    return true;
  }

  async listLinks(filter?: (name: string) => boolean): Promise<{ name: string; index: number; kind?: string }[]> {
    this.record({ op: 'listLinks' });
    return [...this.host]
      .filter(([name]) => filter === undefined || filter(name))
      .map(([name, l]) => (l.kind === undefined ? { name, index: l.index } : { name, index: l.index, kind: l.kind }));
  }

  async inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined> {
    this.record({ op: 'inspectPodLink', netns, ifName });
    if (!this.exists(netns)) return undefined;
    const l = this.pod.get(podKey(netns, ifName));
    if (l === undefined) return undefined;
    return { ifName, mac: l.mac ?? '', mtu: l.mtu ?? 1500, up: l.up, addresses: l.addresses, routes: l.routes };
  }

  async configureHostLink(c: HostLinkConfig): Promise<void> {
    this.record({ op: 'configureHostLink', config: c });
    const what = `host link ${c.name}`;
    const planned = planHostLink(c);
    if (!planned.ok) throw invalid(what, planned.problems);
    const l = this.host.get(c.name);
    if (l === undefined) throw new NetlinkError('KERNEL', `${what}: find ${c.name}: ENODEV`);
    if (c.rename !== undefined && c.rename !== c.name) {
      if (this.host.has(c.rename)) throw new NetlinkError('EXISTS', `${what}: set ifname: the name is taken (EEXIST)`);
      this.host.delete(c.name);
      this.host.set(c.rename, l);
    }
    if (c.mac !== undefined) l.mac = c.mac.toLowerCase();
    if (c.mtu !== undefined) l.mtu = c.mtu;
    l.up = c.up;
    if (c.addresses !== undefined) {
      const families = new Set(c.addresses.map((a) => parseCIDR(a).family));
      const kept = l.addresses.filter((a) => !families.has(parseCIDR(a).family));
      l.addresses = [...kept, ...c.addresses.map(canonCidr)];
    }
    for (const r of (c.routes ?? []).map(canonRoute)) l.routes = [...l.routes.filter((x) => x.dst !== r.dst), r];
  }

  async movePodLink(m: MovedPodLink): Promise<void> {
    this.record({ op: 'movePodLink', link: m });
    const what = `link ${m.name} -> ${m.ifName} in ${m.netns}`;
    const planned = planMovedLink(m);
    if (!planned.ok) throw invalid(what, planned.problems);
    if (!this.exists(m.netns)) throw new NetlinkError('NETNS_GONE', `${what}: ${m.netns} does not exist`);
    const l = this.host.get(m.name);
    if (l === undefined) throw new NetlinkError('KERNEL', `${what}: ${m.name}: ENODEV`);
    const key = podKey(m.netns, m.ifName);
    // The real one moves the link, fails to rename it, and moves it back: the same end state.
    if (this.pod.has(key)) throw new NetlinkError('EXISTS', `${what}: set ifname: the name is taken (EEXIST)`);
    this.host.delete(m.name);
    const addresses = m.addresses.map(canonCidr);
    this.pod.set(key, {
      ...l,
      mac: m.mac.toLowerCase(),
      mtu: m.mtu,
      up: true,
      addresses,
      routes: m.routes.map(canonRoute),
    });
  }

  async releasePodLink(netns: string, ifName: string, name: string): Promise<boolean> {
    this.record({ op: 'releasePodLink', netns, ifName, name });
    if (!this.exists(netns)) return false;
    const key = podKey(netns, ifName);
    const l = this.pod.get(key);
    if (l === undefined) return false;
    if (this.host.has(name)) throw new NetlinkError('KERNEL', `moving ${ifName} out of ${netns} as ${name}: EEXIST`);
    this.pod.delete(key);
    this.host.set(name, { ...l, up: false, addresses: [], routes: [], made: undefined });
    if (l.peer !== undefined) {
      const other = this.host.get(l.peer);
      if (other !== undefined) other.peer = name;
    }
    return true;
  }
}
