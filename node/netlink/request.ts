/**
 * The pure half of node/netlink: a PodLink checked and turned into what the
 * kernel is sent (the veth's IFLA_LINKINFO, the helper's job in bytes), and
 * what the helper reports turned back into a PodLinkState. No I/O here, so
 * every case is a unit test.
 */
import { AttrStream, parseAttributes, rt } from 'netlink';
import {
  type CIDR,
  type IP,
  formatCIDR,
  formatIP,
  formatMAC,
  isNetwork,
  tryParseCIDR,
  tryParseIP,
  tryParseMAC,
} from '../../model/addr/index.ts';
import type { ConfigureJob, Labelled, WireAddress, WireLinkState, WireRoute } from './helper-protocol.ts';
import type { HostLinkConfig, LinkRoute, MovedPodLink, PodLink, PodLinkState } from './types.ts';

/** One thing wrong with a PodLink; `path` names the field (`routes[1].gw`). */
export interface LinkProblem {
  readonly code: 'bad-ifname' | 'bad-netns' | 'bad-mac' | 'bad-mtu' | 'bad-address' | 'bad-route';
  readonly path: string;
  readonly message: string;
}

/** What addPodLink sends: the pod end's MAC as bytes, and the helper's job. */
export interface PodLinkPlan {
  readonly mac: readonly number[];
  readonly job: ConfigureJob;
}

/** IFNAMSIZ is 16 with the terminating NUL. */
const IFNAME_MAX_BYTES = 15;
/** ETH_MIN_MTU and ETH_MAX_MTU: what a veth accepts. */
const MTU_MIN = 68;
const MTU_MAX = 65535;

/**
 * The kernel's dev_valid_name: 1 to 15 bytes, not `.` or `..`, no `/`, `:` or whitespace.
 *
 * @example ifNameProblem('eth0') // undefined
 * @example ifNameProblem('0123456789abcdef_h') // 'is 18 bytes, at most 15'
 */
export function ifNameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(name);
  if (bytes === 0) return 'is empty';
  if (bytes > IFNAME_MAX_BYTES) return `is ${bytes} bytes, at most ${IFNAME_MAX_BYTES}`;
  if (name === '.' || name === '..') return `cannot be ${JSON.stringify(name)}`;
  if (/[/:\s]/.test(name)) return 'contains "/", ":" or whitespace';
  return undefined;
}

/** The IP's bytes in network order, as the RTA_ and IFA_ attributes carry them. */
export function ipBytes(ip: IP): number[] {
  const out: number[] = [];
  if (ip.family === 4) {
    for (let i = 3; i >= 0; i--) out.push((ip.value >>> (i * 8)) & 0xff);
  } else {
    for (let i = 15; i >= 0; i--) out.push(Number((ip.value >> BigInt(i * 8)) & 0xffn));
  }
  return out;
}

/** The inverse of {@link ipBytes}; undefined when the length fits neither family. */
export function ipFromBytes(bytes: readonly number[]): IP | undefined {
  if (bytes.length === 4) return { family: 4, value: bytes.reduce((v, b) => v * 256 + b, 0) };
  if (bytes.length === 16) return { family: 6, value: bytes.reduce((v, b) => (v << 8n) | BigInt(b), 0n) };
  return undefined;
}

const cidrIp = (c: CIDR): IP => (c.family === 4 ? { family: 4, value: c.ip } : { family: 6, value: c.ip });

/** The route's destination and gateway in bytes (src aside), or undefined after recording why not. */
function routeCore(r: LinkRoute, path: string, problems: LinkProblem[]): Labelled<WireRoute> | undefined {
  const label = r.gw === undefined ? r.dst : `${r.dst} via ${r.gw}`;
  const gw = r.gw === undefined ? undefined : tryParseIP(r.gw);
  if (r.gw !== undefined && gw === undefined) {
    problems.push({ code: 'bad-route', path: `${path}.gw`, message: `${JSON.stringify(r.gw)} is not an IP address` });
    return undefined;
  }
  if (r.dst === 'default') {
    // An on-link default route would leave its family unsaid; Kube-OVN always routes it via the gateway.
    if (gw === undefined) {
      problems.push({ code: 'bad-route', path: `${path}.gw`, message: 'a default route needs a gateway' });
      return undefined;
    }
    return { family: gw.family, dstLen: 0, gw: ipBytes(gw), label };
  }
  const dst = tryParseCIDR(r.dst);
  if (dst === undefined || !isNetwork(dst)) {
    const why = dst === undefined ? 'is not "default" or a CIDR' : 'has host bits set';
    problems.push({ code: 'bad-route', path: `${path}.dst`, message: `${JSON.stringify(r.dst)} ${why}` });
    return undefined;
  }
  if (gw !== undefined && gw.family !== dst.family) {
    problems.push({ code: 'bad-route', path: `${path}.gw`, message: `${r.gw} is not of ${r.dst}'s family` });
    return undefined;
  }
  const out: Labelled<WireRoute> = { family: dst.family, dst: ipBytes(cidrIp(dst)), dstLen: dst.prefix, label };
  return gw === undefined ? out : { ...out, gw: ipBytes(gw) };
}

function wireRoute(r: LinkRoute, path: string, problems: LinkProblem[]): Labelled<WireRoute> | undefined {
  const core = routeCore(r, path, problems);
  if (core === undefined || r.src === undefined) return core;
  const src = tryParseIP(r.src);
  if (src === undefined || src.family !== core.family) {
    const why = src === undefined ? 'is not an IP address' : `is not of ${r.dst}'s family`;
    problems.push({ code: 'bad-route', path: `${path}.src`, message: `${JSON.stringify(r.src)} ${why}` });
    return undefined;
  }
  return { ...core, src: ipBytes(src), label: `${core.label} src ${r.src}` };
}

/** What every kind of link configuration says, checked the same way. */
interface LinkSpec {
  /** Interface names to check, by the field path that holds them. */
  readonly names: Readonly<Record<string, string>>;
  readonly netns?: string;
  readonly mac?: string;
  readonly mtu?: number;
  readonly addresses?: readonly string[];
  readonly routes?: readonly LinkRoute[];
}

/** A LinkSpec in bytes. */
interface WireSpec {
  readonly mac?: readonly number[];
  readonly addresses: Labelled<WireAddress>[];
  readonly routes: Labelled<WireRoute>[];
}

function scalarProblems(s: LinkSpec, problems: LinkProblem[]): void {
  for (const [path, name] of Object.entries(s.names)) {
    const p = ifNameProblem(name);
    if (p !== undefined) problems.push({ code: 'bad-ifname', path, message: `${JSON.stringify(name)} ${p}` });
  }
  if (s.netns !== undefined && !s.netns.startsWith('/')) {
    problems.push({ code: 'bad-netns', path: 'netns', message: `${JSON.stringify(s.netns)} is not an absolute path` });
  }
  if (s.mtu !== undefined && (!Number.isInteger(s.mtu) || s.mtu < MTU_MIN || s.mtu > MTU_MAX)) {
    problems.push({ code: 'bad-mtu', path: 'mtu', message: `${s.mtu} is not an integer in ${MTU_MIN}..${MTU_MAX}` });
  }
}

/** Checks a link configuration and turns it into bytes; every problem is collected. */
function planLink(s: LinkSpec): { ok: true; wire: WireSpec } | { ok: false; problems: LinkProblem[] } {
  const problems: LinkProblem[] = [];
  scalarProblems(s, problems);
  const mac = s.mac === undefined ? undefined : tryParseMAC(s.mac);
  if (s.mac !== undefined && mac === undefined)
    problems.push({ code: 'bad-mac', path: 'mac', message: `${JSON.stringify(s.mac)} is not a MAC` });
  const addresses: Labelled<WireAddress>[] = [];
  (s.addresses ?? []).forEach((a, i) => {
    const c = tryParseCIDR(a);
    if (c === undefined) {
      problems.push({ code: 'bad-address', path: `addresses[${i}]`, message: `${JSON.stringify(a)} is not a CIDR` });
    } else addresses.push({ family: c.family, bytes: ipBytes(cidrIp(c)), prefixlen: c.prefix, label: a });
  });
  const routes: Labelled<WireRoute>[] = [];
  (s.routes ?? []).forEach((r, i) => {
    const w = wireRoute(r, `routes[${i}]`, problems);
    if (w !== undefined) routes.push(w);
  });
  if (problems.length > 0) return { ok: false, problems };
  const macBytes = mac === undefined ? undefined : ipBytes({ family: 6, value: BigInt(mac) }).slice(10);
  return { ok: true, wire: macBytes === undefined ? { addresses, routes } : { mac: macBytes, addresses, routes } };
}

export type Planned<T> = { ok: true; plan: T } | { ok: false; problems: LinkProblem[] };

/**
 * Checks a PodLink and turns it into bytes; every problem is collected.
 * The MAC and MTU go into the veth's creation; the job brings lo and the
 * pod end up and adds addresses and routes.
 *
 * @example
 * planPodLink({ hostIfName: 'abc_h', netns: '/run/netns/p', ifName: 'eth0', mac: '0a:58:0a:10:00:05',
 *   mtu: 1400, addresses: ['10.16.0.5/16'], routes: [{ dst: 'default', gw: '10.16.0.1' }] })
 * // { ok: true, plan: { mac: [10, 88, 10, 16, 0, 5], job: { op: 'configure', ifName: 'eth0', ... } } }
 */
export function planPodLink(l: PodLink): Planned<PodLinkPlan> {
  const names = { hostIfName: l.hostIfName, ifName: l.ifName };
  const r = planLink({ names, netns: l.netns, mac: l.mac, mtu: l.mtu, addresses: l.addresses, routes: l.routes });
  if (!r.ok) return r;
  const { addresses, routes } = r.wire;
  const job: ConfigureJob = { op: 'configure', ifName: l.ifName, addresses, routes, lo: true };
  return {
    ok: true,
    plan: { mac: r.wire.mac!, job: l.txChecksumOff === true ? { ...job, txChecksumOff: true } : job },
  };
}

/**
 * A link moved into a pod's namespace (a VF) under its own name: the job
 * renames it to `ifName` there, sets its MAC and MTU, brings lo and it up,
 * adds addresses and routes. (Renaming in the move request itself would
 * leave the link in the namespace under its old name when `ifName` is
 * taken there: the kernel moves first and renames after.)
 *
 * @example
 * planMovedLink({ name: 'enp3s0f0v0', netns: '/run/netns/p', ifName: 'eth0', mac: '0a:58:0a:10:00:05',
 *   mtu: 1400, addresses: ['10.16.0.5/16'], routes: [] }) // { ok: true, plan: { op: 'configure', ... } }
 */
export function planMovedLink(l: MovedPodLink): Planned<ConfigureJob> {
  const names = { name: l.name, ifName: l.ifName };
  const r = planLink({ names, netns: l.netns, mac: l.mac, mtu: l.mtu, addresses: l.addresses, routes: l.routes });
  if (!r.ok) return r;
  const { mac, addresses, routes } = r.wire;
  const job = { op: 'configure', ifName: l.name, rename: l.ifName, mac: mac!, mtu: l.mtu, addresses, routes, lo: true };
  return { ok: true, plan: job as ConfigureJob };
}

/**
 * A host link configured where it is, in the idempotent form (addresses of
 * the listed families replaced, routes replaced): node set-up runs it at
 * every start.
 *
 * @example
 * planHostLink({ name: 'ovn0', mac: '0a:58:64:40:00:02', mtu: 1400, addresses: ['100.64.0.2/16'],
 *   routes: [{ dst: '10.16.0.0/16', gw: '100.64.0.1' }], up: true }) // { ok: true, plan: { op: 'configure', ... } }
 */
export function planHostLink(c: HostLinkConfig): Planned<ConfigureJob> {
  const names: Record<string, string> = { name: c.name };
  if (c.rename !== undefined) names['rename'] = c.rename;
  const spec = {
    names,
    ...(c.mac === undefined ? {} : { mac: c.mac }),
    ...(c.mtu === undefined ? {} : { mtu: c.mtu }),
  };
  const r = planLink({ ...spec, addresses: c.addresses ?? [], routes: c.routes ?? [] });
  if (!r.ok) return r;
  const job: ConfigureJob = {
    op: 'configure',
    ifName: c.name,
    ...(c.rename === undefined ? {} : { rename: c.rename }),
    ...(r.wire.mac === undefined ? {} : { mac: r.wire.mac }),
    ...(c.mtu === undefined ? {} : { mtu: c.mtu }),
    addresses: r.wire.addresses,
    replaceAddresses: c.addresses !== undefined,
    routes: r.wire.routes,
    replaceRoutes: true,
    up: c.up,
  };
  return { ok: true, plan: job };
}

/** `10.16.0.5/16` from its wire form; undefined when the bytes fit no family. */
function cidrText(family: 4 | 6, bytes: readonly number[], prefix: number): string | undefined {
  const ip = ipFromBytes(bytes);
  if (ip === undefined || ip.family !== family) return undefined;
  const c: CIDR = ip.family === 4 ? { family: 4, ip: ip.value, prefix } : { family: 6, ip: ip.value, prefix };
  return formatCIDR(c);
}

/**
 * The helper's report in the interface's words (CIDR text, `default`, colon MAC).
 *
 * @example
 * stateFromWire({ ifName: 'eth0', mac: [10, 88, 0, 0, 0, 1], mtu: 1400, up: true,
 *   addresses: [{ family: 4, bytes: [10, 16, 0, 5], prefixlen: 16 }],
 *   routes: [{ family: 4, dstLen: 0, gw: [10, 16, 0, 1] }] })
 * // { ifName: 'eth0', mac: '0a:58:00:00:00:01', mtu: 1400, up: true,
 * //   addresses: ['10.16.0.5/16'], routes: [{ dst: 'default', gw: '10.16.0.1' }] }
 */
export function stateFromWire(w: WireLinkState): PodLinkState {
  const mac = formatMAC(w.mac.reduce((v, b) => v * 256 + b, 0));
  const addresses = w.addresses.flatMap((a) => cidrText(a.family, a.bytes, a.prefixlen) ?? []);
  const routes = w.routes.map((r) => {
    const dst = r.dstLen === 0 || r.dst === undefined ? 'default' : (cidrText(r.family, r.dst, r.dstLen) ?? '?');
    const gw = r.gw === undefined ? undefined : ipFromBytes(r.gw);
    const src = r.src === undefined ? undefined : ipFromBytes(r.src);
    return {
      dst,
      ...(gw === undefined ? {} : { gw: formatIP(gw) }),
      ...(src === undefined ? {} : { src: formatIP(src) }),
    };
  });
  return { ifName: w.ifName, mac, mtu: w.mtu, up: w.up, addresses, routes };
}

/** IFLA_INFO_KIND and IFLA_INFO_DATA inside IFLA_LINKINFO; VETH_INFO_PEER inside the latter. */
const IFLA_INFO_KIND = 1;
const IFLA_INFO_DATA = 2;
const VETH_INFO_PEER = 1;

/**
 * IFLA_LINKINFO of a veth whose peer is created straight in another
 * namespace (IFLA_NET_NS_FD) under its final name, MAC and MTU. The peer
 * cannot be brought up here: the kernel opens it before its other end
 * exists and answers ENOTCONN, so `up` is the helper's job.
 *
 * @example
 * vethLinkInfo({ peerName: 'eth0', peerMac: [10, 88, 0, 0, 0, 1], mtu: 1400, netnsFd: 23 }) // Buffer
 */
export function vethLinkInfo(p: {
  peerName: string;
  peerMac: readonly number[];
  mtu: number;
  netnsFd: number;
}): Buffer {
  const peer = new AttrStream();
  rt.formatLinkMessage(
    {
      kind: 'link',
      data: {},
      attrs: { ifname: p.peerName, address: Buffer.from(p.peerMac), mtu: p.mtu, netNsFd: p.netnsFd },
    },
    peer,
  );
  const data = new AttrStream();
  data.push(VETH_INFO_PEER, peer.bufs);
  const info = new AttrStream();
  info.push(IFLA_INFO_KIND, Buffer.from('veth\0'));
  info.push(IFLA_INFO_DATA, data.bufs);
  return Buffer.concat(info.bufs);
}

/**
 * IFLA_INFO_KIND out of a link's IFLA_LINKINFO (`veth`, `openvswitch`, ...);
 * undefined for a link without one (a physical NIC, lo).
 */
export function linkKind(linkinfo: Buffer | undefined): string | undefined {
  if (linkinfo === undefined) return undefined;
  let kind: string | undefined;
  parseAttributes(linkinfo, (a) => {
    if (a.type === IFLA_INFO_KIND) kind = a.data.toString('utf8').replace(/\0+$/, '');
  });
  return kind;
}
