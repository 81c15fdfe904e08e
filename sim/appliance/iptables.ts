/**
 * The iptables rules a Kube-OVN VPC NAT gateway pod holds, as data: the
 * chains `nat-gateway.sh init` makes and the rules its `eip-add`,
 * `floating-ip-add`, `snat-add` and `dnat-add` commands leave in them
 * (Kube-OVN dist/images/vpcnatgateway/nat-gateway.sh), in the order they
 * leave them. The simulator's appliance model (nat-gateway.ts) evaluates
 * these rows; the lab installs the same rows with `iptables` (iptablesArgs).
 */
import { formatCIDR, parseCIDR } from '../../model/addr/index.ts';

/** The gateway pod's interfaces: eth0 on the VPC subnet, net1 on the external network. */
export const VPC_INTERFACE = 'eth0';
export const EXTERNAL_INTERFACE = 'net1';

/** What the controller has told one gateway pod (the rules of ready objects, as it ran them). */
export interface NatGatewayRules {
  /** EIPs on net1 (`eip-add`), without prefix. */
  readonly eips: readonly { readonly name: string; readonly ip: string }[];
  readonly fips: readonly { readonly name: string; readonly eip: string; readonly internalIp: string }[];
  readonly snats: readonly { readonly name: string; readonly eip: string; readonly internalCIDR: string }[];
  readonly dnats: readonly {
    readonly name: string;
    readonly eip: string;
    readonly externalPort: number;
    readonly protocol: 'tcp' | 'udp';
    readonly internalIp: string;
    readonly internalPort: number;
  }[];
}

export type NatChain = 'EXCLUSIVE_DNAT' | 'SHARED_DNAT' | 'EXCLUSIVE_SNAT' | 'SHARED_SNAT' | 'HAIRPIN_SNAT';

/** One rule of a chain of the nat table. */
export interface NatRule {
  readonly chain: NatChain;
  /** `-s` and `-d`, CIDRs. */
  readonly src?: string;
  readonly dst?: string;
  readonly proto?: 'tcp' | 'udp';
  readonly dport?: number;
  /** `-o`. */
  readonly out?: string;
  /** HAIRPIN_SNAT: `-m mark --mark 0x1/0x1` (came in on eth0) and `--ctstate DNAT --ctorigdst <eip>`. */
  readonly hairpinOf?: string;
  readonly target: 'DNAT' | 'SNAT';
  readonly toIp: string;
  readonly toPort?: number;
  /** The object the rule is for (`IptablesFIPRule/fip-1`). */
  readonly origin: string;
}

const host = (ip: string) => formatCIDR(parseCIDR(ip, { allowBare: true }));
const prefixOf = (cidr: string) => parseCIDR(cidr, { allowBare: true }).prefix;

/**
 * The nat table's chains after the controller's commands, in chain order:
 * a FIP appends to EXCLUSIVE_DNAT and EXCLUSIVE_SNAT, a DNAT to SHARED_DNAT,
 * a SNAT is inserted after every SHARED_SNAT rule of an equal or longer
 * prefix (snat-add's descending-prefix order), an EIP adds its hairpin rule.
 *
 * @example natRules({ eips: [{ name: 'e', ip: '172.18.0.10' }], fips: [], snats: [], dnats: [] })[0].chain
 *   // 'HAIRPIN_SNAT'
 */
export function natRules(g: NatGatewayRules): NatRule[] {
  const out: NatRule[] = [];
  for (const e of g.eips)
    out.push({
      chain: 'HAIRPIN_SNAT',
      out: VPC_INTERFACE,
      hairpinOf: e.ip,
      target: 'SNAT',
      toIp: e.ip,
      origin: `IptablesEIP/${e.name}`,
    });
  for (const f of g.fips) {
    const origin = `IptablesFIPRule/${f.name}`;
    out.push({ chain: 'EXCLUSIVE_DNAT', dst: host(f.eip), target: 'DNAT', toIp: f.internalIp, origin });
    out.push({ chain: 'EXCLUSIVE_SNAT', src: host(f.internalIp), target: 'SNAT', toIp: f.eip, origin });
  }
  const shared: NatRule[] = [];
  for (const s of g.snats) {
    const src = formatCIDR(parseCIDR(s.internalCIDR, { allowBare: true }));
    const at = shared.filter((r) => prefixOf(r.src!) >= prefixOf(src)).length;
    const rule: NatRule = {
      chain: 'SHARED_SNAT',
      out: EXTERNAL_INTERFACE,
      src,
      target: 'SNAT',
      toIp: s.eip,
      origin: `IptablesSnatRule/${s.name}`,
    };
    shared.splice(at, 0, rule);
  }
  out.push(...shared);
  for (const d of g.dnats)
    out.push({
      chain: 'SHARED_DNAT',
      proto: d.protocol,
      dst: host(d.eip),
      dport: d.externalPort,
      target: 'DNAT',
      toIp: d.internalIp,
      toPort: d.internalPort,
      origin: `IptablesDnatRule/${d.name}`,
    });
  return out;
}

/**
 * The `iptables -t nat -A ...` arguments of a rule, as nat-gateway.sh
 * writes it (the lab runs them in the gateway's namespace).
 *
 * @example iptablesArgs({ chain: 'SHARED_DNAT', proto: 'tcp', dst: '172.18.0.10/32', dport: 80, target: 'DNAT',
 *   toIp: '10.0.1.5', toPort: 8080, origin: '' })
 *   // ['-t', 'nat', '-A', 'SHARED_DNAT', '-p', 'tcp', '-d', '172.18.0.10/32', '--dport', '80', '-j', 'DNAT', '--to-destination', '10.0.1.5:8080']
 */
export function iptablesArgs(r: NatRule): string[] {
  const a = ['-t', 'nat', '-A', r.chain];
  if (r.hairpinOf !== undefined)
    a.push('-m', 'mark', '--mark', '0x1/0x1', '-o', r.out!, '-m', 'conntrack', '--ctstate', 'DNAT');
  if (r.hairpinOf !== undefined) a.push('--ctorigdst', r.hairpinOf);
  else if (r.out !== undefined) a.push('-o', r.out);
  if (r.proto !== undefined) a.push('-p', r.proto);
  if (r.src !== undefined) a.push('-s', r.src);
  if (r.dst !== undefined) a.push('-d', r.dst);
  if (r.dport !== undefined) a.push('--dport', String(r.dport));
  a.push('-j', r.target);
  if (r.target === 'DNAT') a.push('--to-destination', r.toPort !== undefined ? `${r.toIp}:${r.toPort}` : r.toIp);
  else a.push('--to-source', r.toIp);
  if (r.hairpinOf !== undefined) a.push('--random-fully');
  return a;
}

/** The chains and jumps `nat-gateway.sh init` makes, as `iptables` argument lists. */
export const INIT_ARGS: readonly (readonly string[])[] = [
  ...[
    'DNAT_FILTER',
    'SNAT_FILTER',
    'EXCLUSIVE_DNAT',
    'EXCLUSIVE_SNAT',
    'SHARED_DNAT',
    'SHARED_SNAT',
    'HAIRPIN_SNAT',
  ].map((c) => ['-t', 'nat', '-N', c]),
  ['-t', 'mangle', '-N', 'VPC_MARK'],
  ['-t', 'nat', '-A', 'PREROUTING', '-j', 'DNAT_FILTER'],
  ['-t', 'nat', '-A', 'DNAT_FILTER', '-j', 'EXCLUSIVE_DNAT'],
  ['-t', 'nat', '-A', 'DNAT_FILTER', '-j', 'SHARED_DNAT'],
  ['-t', 'nat', '-A', 'POSTROUTING', '-j', 'SNAT_FILTER'],
  ['-t', 'nat', '-A', 'SNAT_FILTER', '-j', 'EXCLUSIVE_SNAT'],
  ['-t', 'nat', '-A', 'SNAT_FILTER', '-j', 'SHARED_SNAT'],
  ['-t', 'nat', '-A', 'SNAT_FILTER', '-j', 'HAIRPIN_SNAT'],
  ['-t', 'mangle', '-A', 'PREROUTING', '-j', 'VPC_MARK'],
  ['-t', 'mangle', '-A', 'VPC_MARK', '-i', VPC_INTERFACE, '-j', 'MARK', '--set-xmark', '0x1/0x1'],
];
