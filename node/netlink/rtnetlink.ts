/**
 * The real Netlink: host-side requests on one rtnetlink socket (the `netlink`
 * package), the pod-side steps in a helper process that enters the pod's
 * namespace (helper.ts), one helper per call.
 *
 * addPodLink, in order: open the namespace (its descriptor pins it until the
 * end of the call); create the veth with the peer straight in the namespace
 * under its final name, MAC and MTU (IFLA_NET_NS_FD), the host end up; the
 * helper brings lo and the peer up, adds addresses and routes; last, the
 * namespace's path must still name the namespace the peer was put in. Any
 * failure after the veth exists deletes the host end (its peer goes with it),
 * so a failed ADD leaves nothing.
 *
 * The optional methods node set-up uses: configureHostLink runs the helper
 * in the daemon's own namespace (ovn0 as an OVS internal port, a VF
 * representor); movePodLink moves a VF into the pod's namespace and the
 * helper renames and sets it up there, moving it back on failure;
 * releasePodLink moves it out again under its host name.
 */
import { type FileHandle, open, stat, statfs } from 'node:fs/promises';
import { FlagsNew, type RtNetlinkSocket, createRtNetlink, type rt } from 'netlink';
import type { HelperReply } from './helper-protocol.ts';
import { type RunHelper, spawnHelper } from './helper.ts';
import {
  type LinkProblem,
  linkKind,
  planHostLink,
  planMovedLink,
  planPodLink,
  stateFromWire,
  vethLinkInfo,
} from './request.ts';
import {
  type HostLinkConfig,
  type MovedPodLink,
  type Netlink,
  NetlinkError,
  type PodLink,
  type PodLinkState,
} from './types.ts';

/** How ns-helper.cjs names a step that sets a link's name. */
const RENAME_STEP = 'set ifname';

/** statfs(2) f_type of namespace files (linux/magic.h NSFS_MAGIC). */
const NSFS_MAGIC = 0x6e736673;

export interface RtNetlinkOptions {
  /** Runs the in-namespace helper; default {@link spawnHelper}(). */
  readonly runHelper?: RunHelper;
}

/** The kernel's error name out of the netlink package's rejection ("Request rejected: EEXIST"). */
export function errnoOf(e: unknown): string | undefined {
  return /Request rejected: (\w+)/.exec(e instanceof Error ? e.message : String(e))?.[1];
}

/** An open namespace and its identity, to notice the path being unmounted or reused. */
interface OpenNetns {
  readonly handle: FileHandle;
  readonly dev: number;
  readonly ino: number;
}

/** The namespace at `path`, or why not: it is missing, or not a namespace file. */
async function openNetns(path: string): Promise<OpenNetns | string> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    return `${path} cannot be opened (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  try {
    const [st, fs] = await Promise.all([handle.stat(), statfs(path)]);
    if (fs.type === NSFS_MAGIC) return { handle, dev: st.dev, ino: st.ino };
  } catch {
    // Gone between open and stat: as good as gone before.
  }
  await handle.close();
  return `${path} is not a namespace file`;
}

/** Whether `path` still names the namespace `ns` was opened from. */
async function stillThere(path: string, ns: OpenNetns): Promise<boolean> {
  try {
    const st = await stat(path);
    return st.dev === ns.dev && st.ino === ns.ino;
  } catch {
    return false;
  }
}

/**
 * @example
 * const nl = new RtNetlink();
 * await nl.addPodLink({ hostIfName: '0123456789ab_h', netns: '/run/netns/pod', ifName: 'eth0',
 *   mac: '0a:58:0a:10:00:05', mtu: 1400, addresses: ['10.16.0.5/16'], routes: [{ dst: 'default', gw: '10.16.0.1' }] });
 * nl.close();
 */
export class RtNetlink implements Netlink {
  private readonly sock: RtNetlinkSocket = createRtNetlink();
  private readonly runHelper: RunHelper;

  constructor(opts: RtNetlinkOptions = {}) {
    this.runHelper = opts.runHelper ?? spawnHelper();
  }

  /** Closes the host socket; later calls fail. */
  close(): void {
    this.sock.socket.close();
  }

  async addPodLink(l: PodLink): Promise<void> {
    const planned = planPodLink(l);
    const what = `pod link ${l.hostIfName} -> ${l.ifName} in ${l.netns}`;
    if (!planned.ok) throw invalid(what, planned.problems);
    const ns = await openNetns(l.netns);
    if (typeof ns === 'string') throw new NetlinkError('NETNS_GONE', `${what}: ${ns}`);
    try {
      await this.createVeth(l, planned.plan.mac, ns.handle.fd, what);
      try {
        const reply = await this.runHelper({ netnsFd: ns.handle.fd, netns: l.netns, job: planned.plan.job });
        if (!reply.ok) throw replyError(what, reply);
        if (!(await stillThere(l.netns, ns))) {
          throw new NetlinkError('NETNS_GONE', `${what}: ${l.netns} was removed during ADD`);
        }
      } catch (e) {
        await this.rollback(l.hostIfName, e);
        throw e;
      }
    } finally {
      await ns.handle.close();
    }
  }

  private async createVeth(l: PodLink, mac: readonly number[], netnsFd: number, what: string): Promise<void> {
    const linkinfo = vethLinkInfo({ peerName: l.ifName, peerMac: mac, mtu: l.mtu, netnsFd });
    try {
      await this.sock.newLink(
        { flags: { up: true }, change: { up: true } },
        { ifname: l.hostIfName, mtu: l.mtu, linkinfo },
        { flags: FlagsNew.CREATE | FlagsNew.EXCL },
      );
    } catch (e) {
      const errno = errnoOf(e);
      if (errno !== 'EEXIST') throw new NetlinkError('KERNEL', `${what}: creating the veth: ${errno ?? e}`, e);
      // EEXIST names neither end: ask the host side, the one we can see.
      const hostTaken = (await this.find(l.hostIfName)) !== undefined;
      const which = hostTaken ? `host link ${l.hostIfName}` : `${l.ifName} in ${l.netns}`;
      throw new NetlinkError('EXISTS', `${what}: ${which} already exists`, e);
    }
  }

  /** Deletes the host end after a failed ADD; a failure to do so is added to the error, not hidden. */
  private async rollback(hostIfName: string, cause: unknown): Promise<void> {
    try {
      await this.deleteLink(hostIfName);
    } catch (e) {
      if (cause instanceof Error) cause.message += ` (and removing ${hostIfName} failed: ${(e as Error).message})`;
    }
  }

  private async find(name: string): Promise<rt.LinkMessage | undefined> {
    try {
      const [link] = await this.sock.getLink({}, { ifname: name });
      return link;
    } catch (e) {
      if (errnoOf(e) === 'ENODEV') return undefined;
      throw new NetlinkError('KERNEL', `reading link ${name}: ${errnoOf(e) ?? e}`, e);
    }
  }

  async deleteLink(name: string): Promise<boolean> {
    const link = await this.find(name);
    if (link?.data.index === undefined) return false;
    try {
      await this.sock.delLink({ index: link.data.index });
      return true;
    } catch (e) {
      // Gone meanwhile (its peer's namespace went away, or another DEL): the same as not there.
      if (errnoOf(e) === 'ENODEV') return false;
      throw new NetlinkError('KERNEL', `deleting link ${name}: ${errnoOf(e) ?? e}`, e);
    }
  }

  async listLinks(filter?: (name: string) => boolean): Promise<{ name: string; index: number; kind?: string }[]> {
    let links: rt.LinkMessage[];
    try {
      links = await this.sock.getLinks();
    } catch (e) {
      throw new NetlinkError('KERNEL', `listing links: ${errnoOf(e) ?? e}`, e);
    }
    const out: { name: string; index: number; kind?: string }[] = [];
    for (const l of links) {
      const name = l.attrs.ifname;
      if (name === undefined || l.data.index === undefined || (filter !== undefined && !filter(name))) continue;
      const kind = linkKind(l.attrs.linkinfo);
      out.push(kind === undefined ? { name, index: l.data.index } : { name, index: l.data.index, kind });
    }
    return out;
  }

  /** Configures an existing link of the daemon's own namespace (ovn0 as an OVS internal port, a VF representor). */
  async configureHostLink(c: HostLinkConfig): Promise<void> {
    const what = `host link ${c.name}`;
    const planned = planHostLink(c);
    if (!planned.ok) throw invalid(what, planned.problems);
    const reply = await this.runHelper({ netns: '(host)', job: planned.plan });
    if (!reply.ok) throw replyError(what, reply);
  }

  /**
   * Moves an existing host link (a VF) into `l.netns` under its own name,
   * then the helper renames it to `l.ifName` and sets it up there; on any
   * failure it is moved back under its name, so a failed ADD leaves the VF
   * where it was.
   */
  async movePodLink(l: MovedPodLink): Promise<void> {
    const what = `link ${l.name} -> ${l.ifName} in ${l.netns}`;
    const planned = planMovedLink(l);
    if (!planned.ok) throw invalid(what, planned.problems);
    const ns = await openNetns(l.netns);
    if (typeof ns === 'string') throw new NetlinkError('NETNS_GONE', `${what}: ${ns}`);
    try {
      const link = await this.find(l.name);
      if (link?.data.index === undefined) throw new NetlinkError('KERNEL', `${what}: ${l.name}: ENODEV`);
      try {
        await this.sock.setLink({ index: link.data.index }, { netNsFd: ns.handle.fd });
      } catch (e) {
        const errno = errnoOf(e);
        if (errno === 'EEXIST') throw new NetlinkError('EXISTS', `${what}: ${l.name} in ${l.netns} already exists`, e);
        throw new NetlinkError('KERNEL', `${what}: moving ${l.name}: ${errno ?? e}`, e);
      }
      try {
        const reply = await this.runHelper({ netnsFd: ns.handle.fd, netns: l.netns, job: planned.plan });
        if (!reply.ok) throw replyError(what, reply);
        if (!(await stillThere(l.netns, ns))) throw new NetlinkError('NETNS_GONE', `${what}: ${l.netns} was removed`);
      } catch (e) {
        await this.moveBack(ns.handle.fd, l, e);
        throw e;
      }
    } finally {
      await ns.handle.close();
    }
  }

  /**
   * Moves a failed VF back. Under its own name first: a link of that name in
   * the namespace is ours (the move would have failed on a clash), while
   * `ifName` may be another link's when the rename was what failed.
   */
  private async moveBack(netnsFd: number, l: MovedPodLink, cause: unknown): Promise<void> {
    try {
      if (!(await this.release(netnsFd, l.netns, l.name, l.name)))
        await this.release(netnsFd, l.netns, l.ifName, l.name);
    } catch (e) {
      if (cause instanceof Error)
        cause.message += ` (and moving ${l.ifName} back as ${l.name} failed: ${(e as Error).message})`;
    }
  }

  /** The helper's release job with the daemon's namespace as fd 4; whether the interface was there. */
  private async release(netnsFd: number, netns: string, ifName: string, name: string): Promise<boolean> {
    const host = await open('/proc/self/ns/net', 'r');
    try {
      const job = { op: 'release', ifName, name } as const;
      const reply = await this.runHelper({ netnsFd, hostNetnsFd: host.fd, netns, job });
      if (!reply.ok) throw replyError(`moving ${ifName} out of ${netns} as ${name}`, reply);
      return reply.op === 'release' && reply.found;
    } finally {
      await host.close();
    }
  }

  async releasePodLink(netns: string, ifName: string, name: string): Promise<boolean> {
    const ns = await openNetns(netns);
    if (typeof ns === 'string') return false;
    try {
      return await this.release(ns.handle.fd, netns, ifName, name);
    } finally {
      await ns.handle.close();
    }
  }

  async inspectPodLink(netns: string, ifName: string): Promise<PodLinkState | undefined> {
    const ns = await openNetns(netns);
    if (typeof ns === 'string') return undefined;
    try {
      const reply = await this.runHelper({ netnsFd: ns.handle.fd, netns, job: { op: 'inspect', ifName } });
      if (!reply.ok) throw replyError(`inspecting ${ifName} in ${netns}`, reply);
      if (reply.op !== 'inspect')
        throw new NetlinkError('HELPER', `inspecting ${ifName} in ${netns}: a ${reply.op} reply`);
      return reply.state === null ? undefined : stateFromWire(reply.state);
    } finally {
      await ns.handle.close();
    }
  }
}

function invalid(what: string, problems: readonly LinkProblem[]): NetlinkError {
  const text = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  return new NetlinkError('INVALID', `${what}: ${text}`, problems);
}

/** A helper's failure as the interface's error: the kernel's refusal (KERNEL) or the helper's own (HELPER). */
function replyError(what: string, reply: Extract<HelperReply, { ok: false }>): NetlinkError {
  if (reply.errno === undefined) return new NetlinkError('HELPER', `${what}: ${reply.step}: ${reply.message}`);
  // A rename to a name the namespace already has.
  if (reply.errno === 'EEXIST' && reply.step.startsWith(RENAME_STEP)) {
    return new NetlinkError('EXISTS', `${what}: ${reply.step}: the name is taken (EEXIST)`);
  }
  return new NetlinkError('KERNEL', `${what}: ${reply.step}: ${reply.errno}`);
}
