/**
 * A probe's `spoof` (scenarios/load.ts): its packet sent as someone else, a
 * pod named by `<namespace>/<name>` or a literal address or MAC, so that what
 * port security judges is the packet itself (docs/scenarios.md).
 */
import { tryParseIP, tryParseMAC } from '../model/addr/index.ts';
import { familyOf, ipDst, withFields, withIPs } from '../model/packet/index.ts';
import type { ProbeSpoof } from './load.ts';
import { ProbeError, type ProbeIndex, type ResolvedProbe } from './probe.ts';

const isV6 = (ip: string) => ip.includes(':');

/**
 * The probe's packet sent with another pod's (or a given) source address and/or MAC.
 *
 * @example spoofed(ix, probe, { ip: 'default/b' }) // probe.packet with b's address as ip4.src, spoofed: { ip: '10.16.0.3' }
 */
export function spoofed(ix: ProbeIndex, r: ResolvedProbe & { kind: 'packet' }, spoof: ProbeSpoof): ResolvedProbe {
  const v6 = familyOf(r.packet) === 6;
  const ownerOf = (what: string, text: string) => {
    const pod = ix.pods.get(text);
    if (pod === undefined) throw new ProbeError(`spoof.${what}: no pod ${text}, and not an address`);
    return pod;
  };
  const out: { ip?: string; mac?: string } = {};
  let packet = r.packet;
  if (spoof.ip !== undefined) {
    const ip = tryParseIP(spoof.ip) !== undefined ? spoof.ip : ownerOf('ip', spoof.ip).ips.find((a) => isV6(a) === v6);
    const parsed = ip === undefined ? undefined : tryParseIP(ip);
    if (ip === undefined || parsed === undefined || (parsed.family === 6) !== v6)
      throw new ProbeError(`spoof.ip: ${spoof.ip} has no address of the probe's family`);
    packet = withIPs(packet, parsed.value, ipDst(packet));
    out.ip = ip;
  }
  if (spoof.mac !== undefined) {
    const mac = tryParseMAC(spoof.mac) !== undefined ? spoof.mac : ownerOf('mac', spoof.mac).mac;
    const value = tryParseMAC(mac);
    if (value === undefined) throw new ProbeError(`spoof.mac: ${spoof.mac} has no MAC`);
    packet = withFields(packet, { 'eth.src': value });
    out.mac = mac;
  }
  return { ...r, packet, spoofed: out };
}
