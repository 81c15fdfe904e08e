/**
 * A spoofed probe in the lab (port security): the source pod's namespace
 * sends, for the probe's length, with another source address (added to
 * `eth0`, the socket bound to it) and/or another MAC (`eth0`'s address
 * changed, then restored). The next hop's MAC is put in the pod's neighbour
 * table first, as the packet carries it, so no ARP or neighbour solicitation
 * (which port security would judge by itself, from the spoofed sender) stands
 * between the probe and its packet: what is judged is the packet itself.
 */
import { formatMAC } from '../../model/addr/index.ts';
import { ipIn } from './host.ts';

const isV6 = (a: string) => a.includes(':');

export interface Spoof {
  readonly ip?: string;
  readonly mac?: string;
}

/** The next hop `ip route get` names for `dst` in `netns`: a gateway, or `dst` itself on the link. */
async function nextHop(netns: string, dst: string): Promise<string> {
  const out = await ipIn(netns, 'route', 'get', dst);
  return /\bvia (\S+)/.exec(out)?.[1] ?? dst;
}

async function ownMac(netns: string): Promise<string> {
  const out = await ipIn(netns, '-j', 'link', 'show', 'eth0');
  return (JSON.parse(out) as { address: string }[])[0]?.address ?? '';
}

/**
 * Runs `send` with the namespace sending as `spoof` says; returns what it
 * returns, the namespace restored whatever happens.
 *
 * @example await asSpoofed('kl-Ab12Cd-p0', { ip: '10.16.0.9' }, { dst: '10.16.0.7', ethDst }, (src) => agent.ping(dst, 2000, src))
 */
export async function asSpoofed<T>(
  netns: string,
  spoof: Spoof,
  to: { readonly dst: string; readonly ethDst: number | undefined },
  send: (src: string | undefined) => Promise<T>,
): Promise<T> {
  const hop = to.ethDst === undefined ? undefined : await nextHop(netns, to.dst);
  if (hop !== undefined && to.ethDst !== undefined)
    await ipIn(netns, 'neigh', 'replace', hop, 'lladdr', formatMAC(to.ethDst), 'dev', 'eth0', 'nud', 'permanent');
  const mac = spoof.mac === undefined ? undefined : await ownMac(netns);
  const addr = spoof.ip === undefined ? undefined : `${spoof.ip}/${isV6(spoof.ip) ? 128 : 32}`;
  try {
    if (addr !== undefined) await ipIn(netns, 'addr', 'add', addr, 'dev', 'eth0', 'nodad');
    if (spoof.mac !== undefined) await ipIn(netns, 'link', 'set', 'eth0', 'address', spoof.mac);
    return await send(spoof.ip);
  } finally {
    if (mac !== undefined) await ipIn(netns, 'link', 'set', 'eth0', 'address', mac);
    if (addr !== undefined) await ipIn(netns, 'addr', 'del', addr, 'dev', 'eth0');
    // Set for this probe only: a later step may give the next hop another MAC.
    if (hop !== undefined) await ipIn(netns, 'neigh', 'del', hop, 'dev', 'eth0').catch(() => {});
  }
}
