/**
 * The naming and addressing plan of generated difftest topologies, and the
 * endpoint inventory a materialized topology exposes to the packet
 * generator. Fixed, readable conventions (so a shrunk counterexample reads
 * like a hand-written test):
 *
 *   router j            lr<j>
 *   switch i            ls<i>          10.<16+i>.0.0/24, fd00:<10+i>::/64 when dual-stack
 *   pod m on switch i   pod<m>.ls<i>   10.<16+i>.0.<10+m>, fd00:<10+i>::<a0+m>
 *   router port         lr<j>-ls<i>    .1 / ::1; switch side ls<i>-lr<j> (type router)
 *   external network    ext<j>         172.<20+j>.0.0/24: router port lr<j>-ext .1,
 *                                      localnet ln-ext<j>, host host<j> .50, upstream .254
 *   router link k       lr<a>-to-lr<b>-<k>  100.65.<k>.1/24 ↔ 100.65.<k>.2/24
 *   NAT n of router j   external IP 172.<20+j>.0.<100+n>
 *   LB k                VIPs 10.96.<k>.10:80, 10.96.<k>.11, [fd00:96::<k+1>]:80, 172.<20+j>.0.<200+k>:80
 */
import { formatMAC } from '../../model/addr/index.ts';

export const lrName = (j: number): string => `lr${j}`;
export const lsName = (i: number): string => `ls${i}`;
export const extName = (j: number): string => `ext${j}`;
export const podName = (i: number, m: number): string => `pod${m}.ls${i}`;
export const lrpToSwitch = (j: number, i: number): string => `lr${j}-ls${i}`;
export const lspToRouter = (i: number, j: number): string => `ls${i}-lr${j}`;
export const lrpToExt = (j: number): string => `lr${j}-ext`;
export const lspExtToRouter = (j: number): string => `ext${j}-lr${j}`;
export const localnetName = (j: number): string => `ln-ext${j}`;
export const hostName = (j: number): string => `host${j}`;
export const linkPort = (a: number, b: number, k: number): string => `lr${a}-to-lr${b}-${k}`;

export const subnet4 = (i: number): string => `10.${16 + i}.0.0/24`;
export const subnet6 = (i: number): string => `fd00:${(10 + i).toString(16)}::/64`;
export const gateway4 = (i: number): string => `10.${16 + i}.0.1`;
export const gateway6 = (i: number): string => `fd00:${(10 + i).toString(16)}::1`;
export const podIp4 = (i: number, m: number): string => `10.${16 + i}.0.${10 + m}`;
export const podIp6 = (i: number, m: number): string => `fd00:${(10 + i).toString(16)}::${(0xa0 + m).toString(16)}`;
export const extSubnet = (j: number): string => `172.${20 + j}.0.0/24`;
export const extRouterIp = (j: number): string => `172.${20 + j}.0.1`;
export const extHostIp = (j: number): string => `172.${20 + j}.0.50`;
export const extUpstreamIp = (j: number): string => `172.${20 + j}.0.254`;
export const natExternalIp = (j: number, n: number): string => `172.${20 + j}.0.${100 + n}`;
export const linkIp = (k: number, side: 1 | 2): string => `100.65.${k}.${side}`;

/** MACs: 0a:58:... for VIFs, 0a:00:... for router ports, 0a:fe:... for distributed NAT. */
export const podMac = (i: number, m: number): string => formatMAC(0x0a580a000000 + i * 0x100 + 0x10 + m);
export const lrpMac = (j: number, i: number): string => formatMAC(0x0a0000000000 + j * 0x10000 + i * 0x100 + 1);
export const extLrpMac = (j: number): string => formatMAC(0x0a000000ff01 + j * 0x10000);
export const linkMac = (k: number, side: 1 | 2): string => formatMAC(0x0a0000650000 + k * 0x100 + side);
export const hostMac = (j: number): string => formatMAC(0x0a58ac000032 + j * 0x10000);
export const natMac = (j: number, n: number): string => formatMAC(0x0afe00000000 + j * 0x100 + n);
/** A MAC no port owns (spoofing, unknown destinations). */
export const STRANGER_MAC = '0a:58:de:ad:be:ef';
/** A source outside every network the topology knows. */
export const INTERNET_IP = '203.0.113.7';
export const INTERNET_DST = '8.8.8.8';

/** An address a packet may come from or go to, with what answers for it at L2. */
export interface Endpoint {
  /** Logical switch port to send from (VIFs, localnet ports). */
  readonly port: string;
  readonly switch: string;
  readonly mac: string;
  readonly ip4?: string;
  readonly ip6?: string;
  /** The router port MAC and addresses of this endpoint's first hop, if any. */
  readonly gatewayMac?: string;
  /** Subnets on this endpoint's L2 segment (destinations inside get the owner's MAC). */
  readonly subnets: readonly string[];
}

/** A destination: an address, and the MAC that answers for it on a given switch. */
export interface Target {
  readonly kind: 'pod' | 'router-ip' | 'vip' | 'nat-ext' | 'outside-host' | 'unknown' | 'internet';
  readonly ip: string;
  /** For VIPs with a port: the port and protocol. */
  readonly port?: number;
  readonly proto?: 'tcp' | 'udp' | 'sctp';
  /** Owner MAC on its own segment, by switch name (pods, router ports, hosts). */
  readonly macOn?: Readonly<Record<string, string>>;
  /** The router owning this address (router IPs, NAT external IPs). */
  readonly router?: string;
}

/** What the packet generator may pick from. */
export interface Inventory {
  readonly pods: readonly Endpoint[];
  /** Sources outside: the localnet port or the host of each external network. */
  readonly outside: readonly Endpoint[];
  readonly targets: readonly Target[];
  /** IPv6 addresses owned by router ports (an NS for them aborts ovn-trace 23.03). */
  readonly routerIp6: ReadonlySet<string>;
}
