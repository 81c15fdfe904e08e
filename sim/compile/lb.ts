/**
 * Load balancer VIPs, parsed and indexed by VIP address. Forms as northd
 * 23.03 accepts them (lib/lb.c): "IP", "IP:port", "[IPv6]:port"; backends
 * "IP[:port],..." of the VIP's family. A VIP without backends drops (or,
 * with options:reject=true, rejects) new connections.
 */
import { tryParseIP } from '../../model/addr/index.ts';
import type { Issue } from '../../model/issues.ts';
import { affinityTimeout, type LoadBalancer } from '../../model/topology/index.ts';
import { type IpKey, ipKey } from './addresses.ts';
import type { LbBackend, LbVip, VipIndex } from './types.ts';

interface Endpoint {
  readonly family: 4 | 6;
  readonly ip: number | bigint;
  readonly port?: number;
}

function parsePort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 65535 ? n : undefined;
}

export function parseEndpoint(text: string): Endpoint | undefined {
  let host = text.trim();
  let portText: string | undefined;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close === -1) return undefined;
    const rest = host.slice(close + 1);
    host = host.slice(1, close);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      portText = rest.slice(1);
    }
  } else if (host.split(':').length === 2) {
    [host = '', portText] = host.split(':');
  }
  const ip = tryParseIP(host);
  if (ip === undefined) return undefined;
  if (portText === undefined) return { family: ip.family, ip: ip.value };
  const port = parsePort(portText);
  return port === undefined ? undefined : { family: ip.family, ip: ip.value, port };
}

function hairpinSnatIp(lb: LoadBalancer): LbVip['hairpinSnatIp'] {
  const text = lb.options['hairpin_snat_ip'];
  if (text === undefined) return undefined;
  const out: { v4?: number; v6?: bigint } = {};
  for (const w of text.split(/\s+/)) {
    const ip = tryParseIP(w);
    if (ip?.family === 4) out.v4 = ip.value;
    else if (ip?.family === 6) out.v6 = ip.value;
  }
  return out;
}

/** Every usable VIP of one load balancer. */
export function compileVips(lb: LoadBalancer, issues: Issue[]): LbVip[] {
  const out: LbVip[] = [];
  const proto = lb.protocol ?? 'tcp';
  for (const [vipText, backendsText] of Object.entries(lb.vips)) {
    const vip = parseEndpoint(vipText);
    if (vip === undefined) {
      issues.push({
        code: 'sim-bad-vip',
        path: ['loadBalancer', lb.name, 'vips', vipText],
        message: `load balancer ${lb.name}: bad VIP ${JSON.stringify(vipText)}; ignored`,
      });
      continue;
    }
    const backends: LbBackend[] = [];
    for (const b of backendsText
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      const be = parseEndpoint(b);
      if (be === undefined || be.family !== vip.family || (be.port === undefined) !== (vip.port === undefined)) {
        issues.push({
          code: 'sim-bad-backend',
          path: ['loadBalancer', lb.name, 'vips', vipText],
          message: `load balancer ${lb.name}: bad backend ${JSON.stringify(b)} for ${vipText}; ignored`,
        });
        continue;
      }
      const dnat: LbBackend['dnat'] = {
        nat: { kind: 'dnat', ip: be.ip, ...(be.port !== undefined ? { port: be.port } : {}) },
      };
      backends.push({ ip: be.ip, ...(be.port !== undefined ? { port: be.port } : {}), text: b, dnat });
    }
    const hairpin = hairpinSnatIp(lb);
    const affinity = affinityTimeout(lb);
    out.push({
      lb,
      family: vip.family,
      ip: vip.ip,
      ...(vip.port !== undefined ? { port: vip.port } : {}),
      proto,
      backends,
      vipText,
      key: `${lb.name}|${vipText}`,
      reject: lb.options['reject'] === 'true',
      skipSnat: lb.options['skip_snat'] === 'true',
      ...(hairpin ? { hairpinSnatIp: hairpin } : {}),
      ...(affinity !== 0 ? { affinityTimeout: affinity } : {}),
    });
  }
  return out;
}

/** Index VIPs by address; within an address, VIPs with a port come first (priority 120 over 110). */
export function indexVips(vips: readonly LbVip[]): VipIndex {
  const m = new Map<IpKey, LbVip[]>();
  for (const v of vips) {
    const k = ipKey(v.ip);
    const list = m.get(k) ?? [];
    list.push(v);
    m.set(k, list);
  }
  for (const list of m.values()) list.sort((a, b) => (b.port !== undefined ? 1 : 0) - (a.port !== undefined ? 1 : 0));
  return m;
}

/**
 * The VIP a packet to `dst` (`proto`, `dport`) hits: first an exact
 * VIP:port of the packet's protocol, then a port-less VIP. Only a VIP of
 * the packet's family: an IPv4 `dst` (a number) never finds the IPv6 VIP
 * `[::a00:1]` (a bigint key), whatever their numbers.
 */
export function findVip(
  index: Pick<VipIndex, 'get'>,
  dst: number | bigint,
  proto: string | undefined,
  dport: number | undefined,
): LbVip | undefined {
  const list = index.get(ipKey(dst));
  if (list === undefined) return undefined;
  for (const v of list) {
    if (v.port === undefined) return v;
    if (v.proto === proto && v.port === dport) return v;
  }
  return undefined;
}
