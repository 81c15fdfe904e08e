/**
 * A drawn {@link TopoSpec} → a valid topology (switches, routers, their
 * ports, external networks, router links) plus the {@link Inventory} of
 * endpoints and addresses the packet generator picks from. Rules (ACLs,
 * LBs, NAT, routes, policies) are resolved in materialize-rules.ts.
 * Pure and total: every spec gives a topology that validateTopology accepts.
 */
import { buildTopology, type Tables, type Topology } from '../../model/topology/index.ts';
import * as L from './layout.ts';
import { materializeRules } from './materialize-rules.ts';
import type { PodSpec, RouterKind, TopoSpec } from './spec.ts';

export interface PodInfo {
  readonly i: number;
  readonly m: number;
  readonly name: string;
  readonly switch: string;
  readonly mac: string;
  readonly ip4: string;
  readonly ip6?: string;
  readonly spec: PodSpec;
}

export interface RouterInfo {
  readonly j: number;
  readonly name: string;
  readonly kind: RouterKind;
  readonly host: boolean;
  readonly defaultRoute: boolean;
  /** Switch indices attached to this router. */
  readonly switches: readonly number[];
  /** Links: this router's side and the peer's address. */
  readonly links: readonly {
    readonly k: number;
    readonly peer: number;
    readonly myIp: string;
    readonly peerIp: string;
  }[];
}

/** The resolved skeleton that rule resolution reads. */
export interface Skeleton {
  readonly routers: readonly RouterInfo[];
  readonly switches: readonly {
    readonly i: number;
    readonly router: number | null;
    readonly dual: boolean;
    readonly routeTable: boolean;
  }[];
  readonly pods: readonly PodInfo[];
}

type Rows = { -readonly [T in keyof Tables]: Tables[T][] };

export const MAX_PORTS = 40;

function skeletonOf(spec: TopoSpec): Skeleton {
  const nr = spec.routers.length;
  const switches = spec.switches.map((s, i) => ({
    i,
    router: s.router === null || nr === 0 ? null : s.router % nr,
    dual: s.dual,
    routeTable: s.routeTable,
  }));
  // Ports besides pods: per switch its router port, per gateway router ext (router port, localnet, host).
  const fixed =
    switches.filter((s) => s.router !== null).length + spec.routers.filter((r) => r.kind !== 'plain').length * 3;
  let budget = Math.max(0, MAX_PORTS - fixed);
  const pods: PodInfo[] = [];
  spec.switches.forEach((s, i) => {
    s.pods.forEach((p, m) => {
      if (budget-- <= 0) return;
      const dual = s.dual;
      pods.push({
        i,
        m,
        name: L.podName(i, m),
        switch: L.lsName(i),
        mac: L.podMac(i, m),
        ip4: L.podIp4(i, m),
        ...(dual ? { ip6: L.podIp6(i, m) } : {}),
        spec: p,
      });
    });
  });
  const seen = new Set<string>();
  const links: { k: number; a: number; b: number }[] = [];
  spec.links.forEach(([x, y]) => {
    if (nr < 2) return;
    const a = x % nr;
    const b = y % nr;
    const id = `${Math.min(a, b)}-${Math.max(a, b)}`;
    if (a === b || seen.has(id)) return;
    seen.add(id);
    links.push({ k: links.length, a, b });
  });
  const routers = spec.routers.map((r, j) => ({
    j,
    name: L.lrName(j),
    kind: r.kind,
    host: r.host,
    defaultRoute: r.defaultRoute,
    switches: switches.filter((s) => s.router === j).map((s) => s.i),
    links: links.flatMap((l) =>
      l.a === j
        ? [{ k: l.k, peer: l.b, myIp: L.linkIp(l.k, 1), peerIp: L.linkIp(l.k, 2) }]
        : l.b === j
          ? [{ k: l.k, peer: l.a, myIp: L.linkIp(l.k, 2), peerIp: L.linkIp(l.k, 1) }]
          : [],
    ),
  }));
  return { routers, switches, pods };
}

const base = { externalIds: {} } as const;

function podRows(rows: Rows, sk: Skeleton): void {
  for (const p of sk.pods) {
    const ips = [p.ip4, ...(p.ip6 ? [p.ip6] : [])];
    const nets = [L.subnet4(p.i), ...(p.ip6 ? [L.subnet6(p.i)] : [])];
    const ps =
      [[], [p.mac], [`${p.mac} ${ips.join(' ')}`], [`${p.mac} ${nets.join(' ')}`]][p.spec.portSecurity % 4] ?? [];
    rows.switchPort.push({
      ...base,
      name: p.name,
      switch: p.switch,
      type: '',
      addresses: [`${p.mac} ${ips.join(' ')}`, ...(p.spec.unknown ? ['unknown'] : [])],
      portSecurity: ps,
      options: {},
    });
  }
}

function switchRows(rows: Rows, sk: Skeleton): void {
  for (const s of sk.switches) {
    rows.switch.push({ ...base, name: L.lsName(s.i), loadBalancers: [], otherConfig: {} });
    if (s.router === null) continue;
    const lrp = L.lrpToSwitch(s.router, s.i);
    rows.routerPort.push({
      ...base,
      name: lrp,
      router: L.lrName(s.router),
      mac: L.lrpMac(s.router, s.i),
      networks: [`${L.gateway4(s.i)}/24`, ...(s.dual ? [`${L.gateway6(s.i)}/64`] : [])],
      gatewayChassis: [],
      options: s.routeTable ? { route_table: 'rtb-a' } : {},
    });
    rows.switchPort.push({
      ...base,
      name: L.lspToRouter(s.i, s.router),
      switch: L.lsName(s.i),
      type: 'router',
      addresses: ['router'],
      portSecurity: [],
      options: { 'router-port': lrp },
    });
  }
}

function routerRows(rows: Rows, sk: Skeleton): void {
  for (const r of sk.routers) {
    rows.router.push({
      ...base,
      name: r.name,
      options: r.kind === 'gateway' ? { chassis: 'hv1' } : {},
      loadBalancers: [],
    });
    for (const l of r.links) {
      rows.routerPort.push({
        ...base,
        name: L.linkPort(r.j, l.peer, l.k),
        router: r.name,
        mac: L.linkMac(l.k, l.myIp.endsWith('.1') ? 1 : 2),
        networks: [`${l.myIp}/24`],
        peer: L.linkPort(l.peer, r.j, l.k),
        gatewayChassis: [],
        options: {},
      });
    }
    if (r.kind === 'plain') continue;
    const ext = L.extName(r.j);
    rows.switch.push({ ...base, name: ext, loadBalancers: [], otherConfig: {} });
    rows.routerPort.push({
      ...base,
      name: L.lrpToExt(r.j),
      router: r.name,
      mac: L.extLrpMac(r.j),
      networks: [`${L.extRouterIp(r.j)}/24`],
      gatewayChassis: r.kind === 'dgp' ? [{ chassisName: 'hv1', priority: 10 }] : [],
      options: {},
    });
    const port = (name: string, row: Partial<Tables['switchPort']>) =>
      rows.switchPort.push({
        ...base,
        name,
        switch: ext,
        type: '',
        addresses: [],
        portSecurity: [],
        options: {},
        ...row,
      });
    port(L.lspExtToRouter(r.j), { type: 'router', addresses: ['router'], options: { 'router-port': L.lrpToExt(r.j) } });
    port(L.localnetName(r.j), { type: 'localnet', addresses: ['unknown'], options: { network_name: 'physnet1' } });
    if (r.host) port(L.hostName(r.j), { addresses: [`${L.hostMac(r.j)} ${L.extHostIp(r.j)}`] });
  }
}

/**
 * @example
 * const { topology, inventory } = materialize(spec);
 * validateTopology(topology) // []
 */
export function materialize(spec: TopoSpec): { topology: Topology; inventory: L.Inventory; skeleton: Skeleton } {
  const sk = skeletonOf(spec);
  const rows: Rows = {
    dhcpOptions: [],
    addressSet: [],
    loadBalancer: [],
    switch: [],
    router: [],
    routerPort: [],
    switchPort: [],
    portGroup: [],
    acl: [],
    qos: [],
    nat: [],
    staticRoute: [],
    routerPolicy: [],
  };
  switchRows(rows, sk);
  routerRows(rows, sk);
  podRows(rows, sk);
  const extra = materializeRules(spec, sk, rows);
  const { topology } = buildTopology(rows);
  return { topology, inventory: inventoryOf(sk, rows, extra), skeleton: sk };
}

/** Rule resolution reports the addresses it created (VIPs, NAT external IPs). */
export interface RuleTargets {
  readonly vips: readonly L.Target[];
  readonly natIps: readonly L.Target[];
}

function inventoryOf(sk: Skeleton, rows: Rows, extra: RuleTargets): L.Inventory {
  const gwMac = (i: number): string | undefined => {
    const r = sk.switches[i]?.router;
    return r === null || r === undefined ? undefined : L.lrpMac(r, i);
  };
  const pods: L.Endpoint[] = sk.pods.map((p) => {
    const gatewayMac = gwMac(p.i);
    return {
      port: p.name,
      switch: p.switch,
      mac: p.mac,
      ip4: p.ip4,
      ...(p.ip6 ? { ip6: p.ip6 } : {}),
      ...(gatewayMac ? { gatewayMac } : {}),
      subnets: [L.subnet4(p.i), ...(p.ip6 ? [L.subnet6(p.i)] : [])],
    };
  });
  const outside: L.Endpoint[] = sk.routers
    .filter((r) => r.kind !== 'plain')
    .flatMap((r) => {
      const common = { switch: L.extName(r.j), gatewayMac: L.extLrpMac(r.j), subnets: [L.extSubnet(r.j)] };
      const upstream = { ...common, port: L.localnetName(r.j), mac: '0a:58:cc:00:00:fe', ip4: L.INTERNET_IP };
      return r.host
        ? [upstream, { ...common, port: L.hostName(r.j), mac: L.hostMac(r.j), ip4: L.extHostIp(r.j) }]
        : [upstream];
    });
  const targets: L.Target[] = [];
  for (const p of sk.pods) {
    targets.push({ kind: 'pod', ip: p.ip4, macOn: { [p.switch]: p.mac } });
    if (p.ip6) targets.push({ kind: 'pod', ip: p.ip6, macOn: { [p.switch]: p.mac } });
  }
  const routerIp6 = new Set<string>();
  for (const lrp of rows.routerPort) {
    const lsp = rows.switchPort.find((s) => s.options['router-port'] === lrp.name);
    for (const n of lrp.networks) {
      const ip = n.split('/')[0] ?? '';
      if (ip.includes(':')) routerIp6.add(ip);
      targets.push({ kind: 'router-ip', ip, router: lrp.router, ...(lsp ? { macOn: { [lsp.switch]: lrp.mac } } : {}) });
    }
  }
  targets.push(...extra.vips, ...extra.natIps);
  for (const r of sk.routers) {
    if (r.kind === 'plain') continue;
    targets.push({
      kind: 'outside-host',
      ip: L.extHostIp(r.j),
      ...(r.host ? { macOn: { [L.extName(r.j)]: L.hostMac(r.j) } } : {}),
    });
  }
  for (const s of sk.switches) targets.push({ kind: 'unknown', ip: `10.${16 + s.i}.0.99` });
  targets.push({ kind: 'unknown', ip: '10.99.0.5' }, { kind: 'internet', ip: L.INTERNET_DST });
  return { pods, outside, targets, routerIp6 };
}
