/**
 * Physical hosts of a scenario (docs/architecture.md, "Scenario files",
 * Physical hosts): machines on a provider network, outside OVN, that probes
 * go from and to. A host sits on one provider network (a ProviderNetwork's
 * name, the `network_name` of the localnet ports Kube-OVN writes for its
 * underlay subnets), untagged or on one VLAN, with addresses given with their
 * on-link prefix, a MAC (derived from its name when not given) and optionally
 * a gateway for everything off-link. The physical gateway of an underlay
 * subnet is such a host; so is an outside machine on a VPC's external network.
 *
 * Read strictly, like the rest of the Scenario document: an unknown field, a
 * malformed address, two hosts with one name, address or MAC are errors.
 */
import { formatMAC, isMulticastMAC, tryParseCIDR, tryParseIP, tryParseMAC } from '../model/addr/index.ts';
import { isPlainObject } from '../kube/cluster/json.ts';

/** One physical host, as loaded (defaults filled in). */
export interface ScenarioHost {
  /** Unique among the scenario's hosts; probes name it `host/<name>`. */
  readonly name: string;
  /** The provider network it is wired to (a ProviderNetwork's name = the localnet port's `network_name`). */
  readonly provider: string;
  /** Its 802.1Q VLAN on that network; 0 = untagged (as a Kube-OVN Vlan with `id: 0`). */
  readonly vlan: number;
  /** Its addresses with their on-link prefixes (`172.17.0.10/16`; a bare address means /32 or /128). */
  readonly ips: readonly string[];
  /** Lower-case MAC; when not written, `02:` and five bytes of a hash of the name (locally administered). */
  readonly mac: string;
  /** Next hop for destinations off every on-link prefix of its family; absent: it reaches only its prefixes. */
  readonly gateways: readonly string[];
}

export const HOST_FIELDS = ['name', 'provider', 'vlan', 'ips', 'mac', 'gateway'];
const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

type Path = readonly (string | number)[];
/** How a problem is reported: the loader's typed error at the field's line. */
export type HostFail = (path: Path, detail: string) => never;

/**
 * A host's default MAC: 02 (locally administered, unicast) and five bytes of
 * FNV-1a over the name, so a scenario's hosts keep their MACs run to run.
 *
 * @example hostMac('gw') // '02:…' (the same every time)
 */
export function hostMac(name: string): string {
  let h = 0x811c9dc5;
  let g = 0x01000193;
  for (let i = 0; i < name.length; i++) {
    h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
    g = Math.imul(g ^ name.charCodeAt(i), 0x811c9dc5) >>> 0;
  }
  return formatMAC(0x02 * 2 ** 40 + h * 256 + (g & 0xff));
}

/** The bare address of one `ips` entry. */
export const hostAddress = (cidr: string): string => cidr.split('/')[0]!;

function ipsOf(v: unknown, fail: HostFail, path: Path): string[] {
  if (!Array.isArray(v) || v.length === 0)
    fail(path, 'must be a non-empty list of addresses with their on-link prefix (172.17.0.10/16)');
  return v.map((x, i) => {
    const c = typeof x === 'string' ? tryParseCIDR(x, { allowBare: true }) : undefined;
    if (typeof x !== 'string' || c === undefined)
      fail([...path, i], 'must be an address, with its prefix: 172.17.0.10/16');
    return x.includes('/') ? x : `${x}/${c.prefix}`;
  });
}

function gatewaysOf(v: unknown, ips: readonly string[], fail: HostFail, path: Path): string[] {
  if (v === undefined) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) fail(path, 'must be an address (or one per family: [v4, v6])');
  const families = new Set<number>();
  return list.map((g, i) => {
    const ip = typeof g === 'string' ? tryParseIP(g) : undefined;
    const at = Array.isArray(v) ? [...path, i] : path;
    if (ip === undefined) fail(at, 'must be an IP address');
    if (families.has(ip.family)) fail(at, `a second IPv${ip.family} gateway`);
    families.add(ip.family);
    if (!ips.some((c) => tryParseCIDR(c)?.family === ip.family))
      fail(at, `the host has no IPv${ip.family} address to reach it from`);
    return g as string;
  });
}

function hostOf(v: unknown, fail: HostFail, path: Path): ScenarioHost {
  if (!isPlainObject(v)) fail(path, 'a host is a mapping {name, provider, vlan?, ips, mac?, gateway?}');
  for (const k of Object.keys(v))
    if (!HOST_FIELDS.includes(k)) fail([...path, k], `unknown field (expected one of ${HOST_FIELDS.join(', ')})`);
  if (typeof v.name !== 'string' || !NAME.test(v.name))
    fail([...path, 'name'], 'must be a DNS-1123 label (lower-case letters, digits, -)');
  if (typeof v.provider !== 'string' || v.provider === '')
    fail([...path, 'provider'], 'must name a provider network (a ProviderNetwork)');
  const vlan = v.vlan ?? 0;
  if (typeof vlan !== 'number' || !Number.isInteger(vlan) || vlan < 0 || vlan > 4094)
    fail([...path, 'vlan'], 'must be a VLAN id 0..4094 (0: untagged)');
  const ips = ipsOf(v.ips, fail, [...path, 'ips']);
  let mac = hostMac(v.name);
  if (v.mac !== undefined) {
    const m = typeof v.mac === 'string' ? tryParseMAC(v.mac) : undefined;
    if (m === undefined || isMulticastMAC(m)) fail([...path, 'mac'], 'must be a unicast MAC (02:00:00:00:00:01)');
    mac = formatMAC(m);
  }
  const gateways = gatewaysOf(v.gateway, ips, fail, [...path, 'gateway']);
  return { name: v.name, provider: v.provider, vlan, ips, mac, gateways };
}

/**
 * `spec.hosts`, checked: each host, and no name, address or MAC twice.
 *
 * @example hostsOf([{ name: 'gw', provider: 'net1', vlan: 100, ips: ['172.17.0.1/16'] }], fail, ['spec', 'hosts'])
 *   // [{ name: 'gw', provider: 'net1', vlan: 100, ips: ['172.17.0.1/16'], mac: '02:…', gateways: [] }]
 */
export function hostsOf(v: unknown, fail: HostFail, path: Path): ScenarioHost[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(path, 'must be a list of hosts');
  const hosts = v.map((h, i) => hostOf(h, fail, [...path, i]));
  const seen = new Map<string, number>();
  hosts.forEach((h, i) => {
    const keys: [string, string][] = [
      [`name ${h.name}`, 'name'],
      [`mac ${h.mac}`, 'mac'],
      ...h.ips.map((c): [string, string] => [`address ${hostAddress(c)}`, 'ips']),
    ];
    for (const [key, field] of keys) {
      const first = seen.get(key);
      if (first !== undefined) fail([...path, i, field], `${key} is already host ${hosts[first]!.name}'s`);
      seen.set(key, i);
    }
  });
  return hosts;
}
