/**
 * The default demo scenario: a small Kube-OVN cluster as the controller would
 * write it into the Northbound DB, probed on the simulator.
 *
 * Until the controller (Kubernetes objects → model) lands, the demo builds
 * the topology in code, with Kube-OVN's names and priorities: router
 * `ovn-cluster`, subnets `ovn-default` (10.16.0.0/16) and `join`
 * (100.64.0.0/16) with node ports, a custom subnet `prod` for namespace
 * prod, pods addressed by the IPAM in document order, the Service load
 * balancer `cluster-tcp-loadbalancer`, router policies at 31000, and the
 * NetworkPolicy `db` (prod) translated as Kube-OVN translates it: port group
 * `db.prod`, address sets `db.prod.ingress.{allow,except}.IPv4.0`, to-lport
 * drop at 2000 and allow-related at 2001.
 */
import { formatIPv4, formatMAC } from '../model/addr/index.ts';
import { IPAM, ownerKey, seededRandomBytes } from '../model/ipam/index.ts';
import { TopoBuilder, validateTopology, type Topology } from '../model/topology/index.ts';
import {
  compileNetwork,
  icmpEcho,
  probeConnection,
  tcpPacket,
  udpPacket,
  type Packet,
  type SimNetwork,
} from '../sim/index.ts';

interface Pod {
  readonly name: string;
  readonly namespace: string;
  readonly subnet: string;
  readonly ip: string;
  readonly mac: string;
}

interface SubnetDef {
  readonly name: string;
  readonly cidr: string;
  readonly gateway: string;
  readonly routerMac: string;
}

const SUBNETS: readonly SubnetDef[] = [
  { name: 'ovn-default', cidr: '10.16.0.0/16', gateway: '10.16.0.1', routerMac: '0a:58:0a:10:00:01' },
  { name: 'join', cidr: '100.64.0.0/16', gateway: '100.64.0.1', routerMac: '0a:58:64:40:00:01' },
  { name: 'prod', cidr: '10.17.0.0/16', gateway: '10.17.0.1', routerMac: '0a:58:0a:11:00:01' },
];

const POD_DOCS = [
  { name: 'web-0', namespace: 'default', subnet: 'ovn-default' },
  { name: 'web-1', namespace: 'default', subnet: 'ovn-default' },
  { name: 'db-0', namespace: 'prod', subnet: 'prod' },
] as const;

const DB_VIP = '10.96.0.20';

export interface DemoProbe {
  readonly from: string;
  readonly to: string;
  readonly protocol: 'TCP' | 'UDP' | 'ICMP';
  readonly port?: number;
  readonly expected: boolean;
}

export const DEMO_PROBES: readonly DemoProbe[] = [
  { from: 'default/web-0', to: 'prod/db-0', protocol: 'TCP', port: 5432, expected: true },
  { from: 'default/web-0', to: 'prod/db-0', protocol: 'TCP', port: 22, expected: false },
  { from: 'default/web-0', to: 'prod/db-0', protocol: 'ICMP', expected: false },
  { from: 'default/web-0', to: 'svc/prod/db', protocol: 'TCP', port: 5432, expected: true },
  { from: 'default/web-1', to: 'default/web-0', protocol: 'TCP', port: 80, expected: true },
  { from: 'prod/db-0', to: 'default/web-0', protocol: 'UDP', port: 53, expected: true },
  { from: 'default/web-1', to: 'default/web-0', protocol: 'ICMP', expected: true },
];

export interface DemoResult {
  readonly from: string;
  readonly to: string;
  readonly protocol: string;
  readonly port?: number;
  readonly expected: boolean;
  readonly allowed: boolean;
  readonly ok: boolean;
  readonly reason?: string;
}

/** Pods addressed by the IPAM, in document order, as the controller would. */
function allocatePods(): Pod[] {
  const ipam = new IPAM({ random: seededRandomBytes(1) });
  for (const s of SUBNETS) {
    const r = ipam.setSubnet({ name: s.name, cidrBlock: s.cidr, gateway: s.gateway });
    if (!r.ok) throw new Error(`demo: subnet ${s.name}: ${r.issues.map((i) => i.message).join('; ')}`);
  }
  return POD_DOCS.map((d) => {
    const r = ipam.allocate({ subnet: d.subnet, owner: ownerKey(d.name, d.namespace), namespace: d.namespace });
    if (!r.ok) throw r.error;
    return { ...d, ip: formatIPv4(r.lease.v4!), mac: formatMAC(r.lease.mac) };
  });
}

/** The NB topology the controller would write for the demo cluster. */
export function demoTopology(pods: readonly Pod[] = allocatePods()): Topology {
  const b = new TopoBuilder().router('ovn-cluster');
  for (const s of SUBNETS) {
    b.switch(s.name, s.name === 'join' ? [] : ['cluster-tcp-loadbalancer']);
    b.connect('ovn-cluster', s.name, s.routerMac, [`${s.gateway}/${s.cidr.split('/')[1]}`]);
    if (s.name !== 'join') b.policy('ovn-cluster', 31000, `ip4.dst == ${s.cidr}`, 'allow');
  }
  b.vif('node-kovn-node-1', 'join', '0a:58:64:40:00:02', '100.64.0.2');
  for (const p of pods) b.vif(ownerKey(p.name, p.namespace), p.subnet, p.mac, p.ip);
  const db = pods.find((p) => p.name === 'db-0')!;
  const webIps = pods.filter((p) => p.name.startsWith('web-')).map((p) => p.ip);
  b.lb('cluster-tcp-loadbalancer', { [`${DB_VIP}:5432`]: `${db.ip}:5432` }, { protocol: 'tcp' })
    .portGroup('db.prod', [ownerKey(db.name, db.namespace)])
    .addressSet('db.prod.ingress.allow.IPv4.0', webIps)
    .addressSet('db.prod.ingress.except.IPv4.0', [])
    .acl('db.prod', 'to-lport', 2000, 'outport == @db.prod && ip', 'drop', { name: 'db.prod' })
    .acl(
      'db.prod',
      'to-lport',
      2001,
      'outport == @db.prod && ip && ip4.src == $db.prod.ingress.allow.IPv4.0 && ip4.src != $db.prod.ingress.except.IPv4.0 && tcp.dst == 5432',
      'allow-related',
      { name: 'db.prod' },
    );
  const topology = b.build();
  const issues = validateTopology(topology);
  if (issues.length > 0)
    throw new Error(`demo topology is invalid: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return topology;
}

function packetFor(probe: DemoProbe, src: Pod, dstIp: string, ethDst: string): Packet {
  const base = { ethSrc: src.mac, ethDst, src: src.ip, dst: dstIp };
  if (probe.protocol === 'ICMP') return icmpEcho(base);
  if (probe.protocol === 'UDP') return udpPacket({ ...base, sport: 40000, dport: probe.port ?? 0 });
  return tcpPacket({ ...base, sport: 40000, dport: probe.port ?? 0 });
}

function runProbe(net: SimNetwork, pods: readonly Pod[], probe: DemoProbe): DemoResult {
  const byRef = (ref: string) => pods.find((p) => `${p.namespace}/${p.name}` === ref);
  const src = byRef(probe.from);
  if (!src) throw new Error(`demo: unknown pod ${probe.from}`);
  const isSvc = probe.to.startsWith('svc/');
  const dst = isSvc ? pods.find((p) => p.name === 'db-0') : byRef(probe.to);
  if (!dst) throw new Error(`demo: unknown destination ${probe.to}`);
  const dstIp = isSvc ? DB_VIP : dst.ip;
  // Same subnet: the pod ARPs for the peer; otherwise it sends to its gateway's MAC.
  const sameSubnet = !isSvc && dst.subnet === src.subnet;
  const ethDst = sameSubnet ? dst.mac : SUBNETS.find((s) => s.name === src.subnet)!.routerMac;
  const r = probeConnection(net, {
    inport: ownerKey(src.name, src.namespace),
    target: ownerKey(dst.name, dst.namespace),
    packet: packetFor(probe, src, dstIp, ethDst),
  });
  return {
    from: probe.from,
    to: probe.to,
    protocol: probe.protocol,
    ...(probe.port !== undefined ? { port: probe.port } : {}),
    expected: probe.expected,
    allowed: r.allowed,
    ok: r.allowed === probe.expected,
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/**
 * @example runDemo().every((r) => r.ok) // true
 */
export function runDemo(): DemoResult[] {
  const pods = allocatePods();
  const net = compileNetwork(demoTopology(pods));
  return DEMO_PROBES.map((p) => runProbe(net, pods, p));
}
