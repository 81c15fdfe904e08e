/**
 * `kovn bench scale`: the core at cluster size. A topology of N pod ports
 * over S switches under one router (Kube-OVN's shape: one port group and
 * address set per NetworkPolicy-like rule), planned from empty, compiled on
 * the simulator on 1 switch and on S switches, and probed. Reports times,
 * operation counts, compile work (rows scanned) and RSS; never fails on a
 * figure. The CI smoke test (scale.test.ts) builds the same topology and
 * asserts results, not timings.
 */
import { formatIPv4, formatMAC } from '../model/addr/index.ts';
import { parseMatch } from '../model/match/index.ts';
import { tcpPacket } from '../model/packet/index.ts';
import { buildTopology, emptyTopology, plan, type Tables, type Topology } from '../model/topology/index.ts';
import { compileNetwork, type SimNetwork, simulate } from '../sim/index.ts';

export interface ScaleParams {
  /** Pod ports (default 150,000). */
  readonly ports?: number;
  /** Switches they spread over (default 2,000). */
  readonly switches?: number;
}

export interface ScaleReport {
  name: 'scale';
  params: { ports: number; switches: number };
  metrics: {
    rows: number;
    plan_ms: number;
    plan_operations: number;
    compile_1_switch_ms: number;
    compile_n_switches_ms: number;
    ports_scanned_1_switch: number;
    ports_scanned_n_switches: number;
    probe_ms: number;
    rss_mb: number;
  };
}

const ROUTER_MAC = (sw: number) => 0x0a5800000000 + 0x10000000 + sw;
const POD_MAC = (i: number) => 0x0a5800000000 + i + 1;

/** Host bits of each switch's subnet inside 10.0.0.0/8: room for its ports, the gateway and the broadcast. */
export function hostBits(ports: number, switches: number): number {
  const bits = Math.max(4, Math.ceil(Math.log2(Math.ceil(ports / switches) + 3)));
  if (bits + Math.ceil(Math.log2(switches)) > 24) throw new Error('scaleTopology: does not fit in 10.0.0.0/8');
  return bits;
}

/** Pod i's switch and address: switch i mod S, its address inside that switch's subnet. */
export function podOf(
  i: number,
  switches: number,
  ports: number,
): { sw: number; ip: string; mac: string; name: string } {
  const sw = i % switches;
  const slot = Math.floor(i / switches) + 2;
  const ip = formatIPv4(((10 << 24) | (sw << hostBits(ports, switches)) | slot) >>> 0);
  return { sw, ip, mac: formatMAC(POD_MAC(i)), name: `pod-${i}` };
}

/**
 * N ports over S switches, each switch a subnet of 10.0.0.0/8 routed by router `lr`; every 100th pod in port group
 * `deny` with a to-lport drop ACL, every 10th in address set `web`.
 */
export function scaleTopology(ports: number, switches: number): Topology {
  const bits = hostBits(ports, switches);
  const t: { -readonly [K in keyof Tables]?: Tables[K][] } = {
    router: [{ name: 'lr', options: {}, loadBalancers: [], externalIds: {} }],
    switch: [],
    routerPort: [],
    switchPort: [],
  };
  for (let s = 0; s < switches; s++) {
    const gw = formatIPv4(((10 << 24) | (s << bits) | 1) >>> 0);
    t.switch!.push({ name: `ls${s}`, loadBalancers: [], otherConfig: {}, externalIds: {} });
    t.routerPort!.push({
      name: `lr-ls${s}`,
      router: 'lr',
      mac: formatMAC(ROUTER_MAC(s)),
      networks: [`${gw}/${32 - bits}`],
      gatewayChassis: [],
      options: {},
      externalIds: {},
    });
    t.switchPort!.push({
      name: `ls${s}-lr`,
      switch: `ls${s}`,
      type: 'router',
      addresses: ['router'],
      portSecurity: [],
      options: { 'router-port': `lr-ls${s}` },
      externalIds: {},
    });
  }
  const deny: string[] = [];
  const web: string[] = [];
  for (let i = 0; i < ports; i++) {
    const p = podOf(i, switches, ports);
    t.switchPort!.push({
      name: p.name,
      switch: `ls${p.sw}`,
      type: '',
      addresses: [`${p.mac} ${p.ip}`],
      portSecurity: [],
      options: {},
      externalIds: {},
    });
    if (i % 100 === 0) deny.push(p.name);
    if (i % 10 === 0) web.push(p.ip);
  }
  t.portGroup = [{ name: 'deny', ports: deny, externalIds: {} }];
  t.addressSet = [{ name: 'web', addresses: web, externalIds: {} }];
  t.acl = [
    {
      attachTo: { kind: 'port-group', name: 'deny' },
      direction: 'to-lport',
      priority: 1000,
      match: parseMatch('outport == @deny && ip4 && ip4.src != $web'),
      action: 'drop',
      log: false,
      options: {},
      externalIds: {},
    },
  ];
  const { topology, issues } = buildTopology(t);
  if (issues.length > 0) throw new Error(`scaleTopology: ${issues[0]?.message}`);
  return topology;
}

/** A TCP SYN from pod `a` to pod `b` (through the router when they are on different switches). */
export function probeBetween(net: SimNetwork, a: number, b: number, switches: number, ports: number) {
  const pa = podOf(a, switches, ports);
  const pb = podOf(b, switches, ports);
  const ethDst = pa.sw === pb.sw ? pb.mac : formatMAC(ROUTER_MAC(pa.sw));
  return simulate(net, {
    inport: pa.name,
    packet: tcpPacket({ ethSrc: pa.mac, ethDst, src: pa.ip, dst: pb.ip, sport: 40000, dport: 80 }),
    trace: false,
  });
}

const rowsOf = (t: Topology) => Object.values(t).reduce((n, m: ReadonlyMap<string, unknown>) => n + m.size, 0);

export function runScaleBench(params: ScaleParams = {}): ScaleReport {
  const ports = params.ports ?? 150_000;
  const switches = params.switches ?? 2_000;
  const many = scaleTopology(ports, switches);
  let t0 = performance.now();
  const ops = plan(emptyTopology(), many);
  const planMs = performance.now() - t0;
  t0 = performance.now();
  const netMany = compileNetwork(many);
  const compileMany = performance.now() - t0;
  t0 = performance.now();
  for (let i = 0; i < 1000; i++) probeBetween(netMany, (i * 7919) % ports, (i * 104729) % ports, switches, ports);
  const probeMs = (performance.now() - t0) / 1000;
  const one = scaleTopology(ports, 1);
  t0 = performance.now();
  const netOne = compileNetwork(one);
  const compileOne = performance.now() - t0;
  return {
    name: 'scale',
    params: { ports, switches },
    metrics: {
      rows: rowsOf(many),
      plan_ms: Math.round(planMs),
      plan_operations: ops.length,
      compile_1_switch_ms: Math.round(compileOne),
      compile_n_switches_ms: Math.round(compileMany),
      ports_scanned_1_switch: netOne.stats?.portsScanned ?? -1,
      ports_scanned_n_switches: netMany.stats?.portsScanned ?? -1,
      probe_ms: Math.round(probeMs * 1000) / 1000,
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    },
  };
}
