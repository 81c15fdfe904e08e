/**
 * A Netlink that keeps veth pairs in memory, for the daemon's tests before
 * (and beside) the real one: namespaces exist when added, a pair's pod end
 * lives in its namespace, removing a namespace removes the pairs whose end
 * was in it (as the kernel does), and every request is recorded.
 */
import { NetlinkError, type Netlink, type PodLink, type PodLinkState } from '../../netlink/types.ts';

export class FakeNetlink implements Netlink {
  readonly namespaces = new Set<string>();
  /** Host end → the pod end's namespace and state. */
  readonly links = new Map<string, { netns: string; state: PodLinkState }>();
  readonly calls: string[] = [];
  /** Every pod link asked for, as asked. */
  readonly added: PodLink[] = [];
  /** Called inside addPodLink after the pair exists and before its end is set up (to remove a namespace meanwhile). */
  midAdd?: (l: PodLink) => void;

  async addPodLink(l: PodLink): Promise<void> {
    this.calls.push(`add ${l.hostIfName} ${l.netns} ${l.ifName}`);
    this.added.push(l);
    if (!this.namespaces.has(l.netns)) throw new NetlinkError('NETNS_GONE', `netns ${l.netns}: does not exist`);
    if (this.links.has(l.hostIfName)) throw new NetlinkError('EXISTS', `link ${l.hostIfName}: exists`);
    const inNs = [...this.links.values()].some((v) => v.netns === l.netns && v.state.ifName === l.ifName);
    if (inNs) throw new NetlinkError('EXISTS', `link ${l.ifName} in ${l.netns}: exists`);
    const state = {
      ifName: l.ifName,
      mac: l.mac,
      mtu: l.mtu,
      up: true,
      addresses: [...l.addresses],
      routes: [...l.routes],
    };
    this.links.set(l.hostIfName, { netns: l.netns, state });
    this.midAdd?.(l);
    if (!this.namespaces.has(l.netns)) {
      this.links.delete(l.hostIfName);
      throw new NetlinkError('NETNS_GONE', `netns ${l.netns}: vanished while ${l.hostIfName} was set up`);
    }
  }

  async deleteLink(name: string): Promise<boolean> {
    this.calls.push(`del ${name}`);
    return this.links.delete(name);
  }

  async listLinks(filter?: (name: string) => boolean) {
    return [...this.links.keys()]
      .filter((n) => filter === undefined || filter(n))
      .map((name, index) => ({ name, index: index + 1, kind: 'veth' }));
  }

  async inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined> {
    if (!this.namespaces.has(netns)) return undefined;
    return [...this.links.values()].find((v) => v.netns === netns && v.state.ifName === ifName)?.state;
  }

  /** The namespace goes, and with it every pair with an end in it. */
  removeNamespace(path: string): void {
    this.namespaces.delete(path);
    for (const [name, v] of this.links) if (v.netns === path) this.links.delete(name);
  }
}
