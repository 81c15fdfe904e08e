/**
 * A Netlink that records each request in order and keeps the host links
 * they would leave, without touching the kernel. Written before node/netlink
 * had a recorder of the optional requests; node/setup's tests now use
 * node/netlink's RecordingNetlink (which checks requests as RtNetlink does),
 * and this one stays for node/daemon/agent.test.ts, which imports it.
 */
import type { HostLinkConfig, MovedPodLink, Netlink, PodLink, PodLinkState } from '../../netlink/types.ts';

export type NetlinkRequest =
  | { readonly op: 'addPodLink'; readonly link: PodLink }
  | { readonly op: 'deleteLink'; readonly name: string }
  | { readonly op: 'configureHostLink'; readonly config: HostLinkConfig }
  | { readonly op: 'movePodLink'; readonly link: MovedPodLink }
  | { readonly op: 'releasePodLink'; readonly netns: string; readonly ifName: string; readonly name: string };

/**
 * @example
 * const nl = new RecordingNetlink(['eth1']);
 * await nl.movePodLink({ name: 'eth1', netns: '/run/netns/p', ifName: 'eth0', ... });
 * nl.requests // [{ op: 'movePodLink', link: { name: 'eth1', ... } }]
 */
export class RecordingNetlink implements Netlink {
  readonly requests: NetlinkRequest[] = [];
  /** Host links by name (a moved VF leaves, a released one comes back). */
  readonly links = new Set<string>();
  /** Pod-side links by `netns|ifName`, with the host name they came from. */
  readonly podLinks = new Map<string, { from: string; state: PodLinkState }>();

  constructor(hostLinks: readonly string[] = []) {
    for (const l of hostLinks) this.links.add(l);
  }

  async addPodLink(link: PodLink): Promise<void> {
    this.requests.push({ op: 'addPodLink', link });
    this.links.add(link.hostIfName);
    this.podLinks.set(`${link.netns}|${link.ifName}`, { from: link.hostIfName, state: stateOf(link) });
  }

  async deleteLink(name: string): Promise<boolean> {
    this.requests.push({ op: 'deleteLink', name });
    for (const [k, v] of this.podLinks) if (v.from === name) this.podLinks.delete(k);
    return this.links.delete(name);
  }

  async listLinks(filter?: (name: string) => boolean) {
    return [...this.links].filter((n) => filter?.(n) ?? true).map((name, index) => ({ name, index: index + 1 }));
  }

  async inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined> {
    return this.podLinks.get(`${netns}|${ifName}`)?.state;
  }

  async configureHostLink(config: HostLinkConfig): Promise<void> {
    this.requests.push({ op: 'configureHostLink', config });
    if (config.rename !== undefined && this.links.delete(config.name)) this.links.add(config.rename);
  }

  async movePodLink(link: MovedPodLink): Promise<void> {
    this.requests.push({ op: 'movePodLink', link });
    this.links.delete(link.name);
    this.podLinks.set(`${link.netns}|${link.ifName}`, { from: link.name, state: stateOf(link) });
  }

  async releasePodLink(netns: string, ifName: string, name: string): Promise<boolean> {
    this.requests.push({ op: 'releasePodLink', netns, ifName, name });
    const had = this.podLinks.delete(`${netns}|${ifName}`);
    if (had) this.links.add(name);
    return had;
  }
}

function stateOf(l: PodLink | MovedPodLink): PodLinkState {
  return { ifName: l.ifName, mac: l.mac, mtu: l.mtu, up: true, addresses: l.addresses, routes: l.routes };
}
