/**
 * TopoBuilder: topologies built a row at a time, for tests, scenarios and
 * benchmarks, so each states only what it is about. Rows are ordinary
 * model/topology rows (defaults for the columns a call does not name); the
 * result goes through `buildTopology`, so duplicate keys are caught.
 * `twoSubnets()` is the small router lab many simulator tests share.
 */
import type { Issue } from '../issues.ts';
import { parseMatch } from '../match/index.ts';
import { buildTopology } from './build.ts';
import type {
  AclAction,
  AclDirection,
  LoadBalancer,
  NAT,
  RouterPolicyAction,
  TableName,
  Tables,
  Topology,
} from './types.ts';

type Rows = { [T in TableName]: Tables[T][] };

export interface VifOptions {
  readonly portSecurity?: readonly string[];
  readonly enabled?: boolean;
  readonly extraAddresses?: readonly string[];
}

/** `build()` on rows with duplicate keys (the issues say which). */
export class TopoBuilderError extends Error {
  override readonly name = 'TopoBuilderError';
  readonly code = 'duplicate-key';
  constructor(readonly issues: readonly Issue[]) {
    super(`TopoBuilder: ${issues.map((i) => i.message).join('; ')}`);
  }
}

/**
 * @example
 * const t = new TopoBuilder().switch('sw1').vif('p1', 'sw1', '00:00:00:00:01:01', '10.0.1.11')
 *   .acl('sw1', 'to-lport', 1000, 'outport == "p1" && tcp.dst == 22', 'drop').build();
 */
export class TopoBuilder {
  private readonly rows: Rows = {
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

  switch(name: string, loadBalancers: readonly string[] = []): this {
    this.rows.switch.push({ name, loadBalancers: [...loadBalancers], otherConfig: {}, externalIds: {} });
    return this;
  }

  /** A VIF with "MAC IP..." addresses. */
  vif(name: string, sw: string, mac: string, ips: string, opts: VifOptions = {}): this {
    this.rows.switchPort.push({
      name,
      switch: sw,
      type: '',
      addresses: [`${mac} ${ips}`.trim(), ...(opts.extraAddresses ?? [])],
      portSecurity: [...(opts.portSecurity ?? [])],
      options: {},
      ...(opts.enabled === false ? { enabled: false } : {}),
      externalIds: {},
    });
    return this;
  }

  port(row: Partial<Tables['switchPort']> & { name: string; switch: string }): this {
    this.rows.switchPort.push({ type: '', addresses: [], portSecurity: [], options: {}, externalIds: {}, ...row });
    return this;
  }

  router(name: string, options: Record<string, string> = {}, loadBalancers: readonly string[] = []): this {
    this.rows.router.push({ name, options, loadBalancers: [...loadBalancers], externalIds: {} });
    return this;
  }

  /**
   * Router port `<router>-<switch>` and switch port `<switch>-<router>` of type
   * router (or the names given in `opts`).
   */
  connect(
    router: string,
    sw: string,
    mac: string,
    networks: readonly string[],
    opts: { gatewayChassis?: string; options?: Record<string, string>; lrpName?: string; lspName?: string } = {},
  ): this {
    const lrp = opts.lrpName ?? `${router}-${sw}`;
    this.rows.routerPort.push({
      name: lrp,
      router,
      mac,
      networks: [...networks],
      gatewayChassis: opts.gatewayChassis ? [{ chassisName: opts.gatewayChassis, priority: 10 }] : [],
      options: opts.options ?? {},
      externalIds: {},
    });
    this.rows.switchPort.push({
      name: opts.lspName ?? `${sw}-${router}`,
      switch: sw,
      type: 'router',
      addresses: ['router'],
      portSecurity: [],
      options: { 'router-port': lrp },
      externalIds: {},
    });
    return this;
  }

  /** Two router ports peered directly. */
  peer(a: string, b: string, macA: string, netA: string, macB: string, netB: string): this {
    this.rows.routerPort.push({
      name: `${a}-${b}`,
      router: a,
      mac: macA,
      networks: [netA],
      peer: `${b}-${a}`,
      gatewayChassis: [],
      options: {},
      externalIds: {},
    });
    this.rows.routerPort.push({
      name: `${b}-${a}`,
      router: b,
      mac: macB,
      networks: [netB],
      peer: `${a}-${b}`,
      gatewayChassis: [],
      options: {},
      externalIds: {},
    });
    return this;
  }

  portGroup(name: string, ports: readonly string[]): this {
    this.rows.portGroup.push({ name, ports: [...ports], externalIds: {} });
    return this;
  }

  addressSet(name: string, addresses: readonly string[]): this {
    this.rows.addressSet.push({ name, addresses: [...addresses], externalIds: {} });
    return this;
  }

  acl(
    on: string,
    direction: AclDirection,
    priority: number,
    match: string,
    action: AclAction,
    extra: { name?: string; label?: number; options?: Record<string, string>; kind?: 'switch' | 'port-group' } = {},
  ): this {
    const kind = extra.kind ?? (this.rows.portGroup.some((p) => p.name === on) ? 'port-group' : 'switch');
    this.rows.acl.push({
      attachTo: { kind, name: on },
      direction,
      priority,
      match: parseMatch(match),
      action,
      log: false,
      options: extra.options ?? {},
      externalIds: {},
      ...(extra.name ? { name: extra.name } : {}),
      ...(extra.label !== undefined ? { label: extra.label } : {}),
    });
    return this;
  }

  lb(name: string, vips: Record<string, string>, extra: Partial<LoadBalancer> = {}): this {
    this.rows.loadBalancer.push({ name, vips, selectionFields: [], options: {}, externalIds: {}, ...extra });
    return this;
  }

  nat(router: string, type: NAT['type'], externalIp: string, logicalIp: string, extra: Partial<NAT> = {}): this {
    this.rows.nat.push({ router, type, externalIp, logicalIp, options: {}, externalIds: {}, ...extra });
    return this;
  }

  route(router: string, ipPrefix: string, nexthop: string, extra: Partial<Tables['staticRoute']> = {}): this {
    this.rows.staticRoute.push({ router, ipPrefix, nexthop, routeTable: '', options: {}, externalIds: {}, ...extra });
    return this;
  }

  policy(
    router: string,
    priority: number,
    match: string,
    action: RouterPolicyAction,
    nexthops: readonly string[] = [],
  ): this {
    this.rows.routerPolicy.push({
      router,
      priority,
      match: parseMatch(match),
      action,
      nexthops: [...nexthops],
      options: {},
      externalIds: {},
    });
    return this;
  }

  qos(sw: string, direction: AclDirection, priority: number, match: string, dscp: number): this {
    this.rows.qos.push({
      switch: sw,
      direction,
      priority,
      match: parseMatch(match),
      action: { dscp },
      bandwidth: {},
      externalIds: {},
    });
    return this;
  }

  build(): Topology {
    const { topology, issues } = buildTopology(this.rows);
    if (issues.length > 0) throw new TopoBuilderError(issues);
    return topology;
  }
}

/**
 * The router lab most simulator tests share (mirrors the real-OVN lab the semantics
 * were checked against):
 *
 *   p1 10.0.1.11, p2 10.0.1.12 ── sw1 ── r1 ── sw2 ── q1 10.0.2.11
 *   (r1-sw1 10.0.1.1/24, r1-sw2 10.0.2.1/24)
 *
 * @example const t = twoSubnets().acl('sw1', 'from-lport', 1000, 'tcp.dst == 80', 'reject').build();
 */
export function twoSubnets(routerOptions: Record<string, string> = {}): TopoBuilder {
  return new TopoBuilder()
    .switch('sw1')
    .switch('sw2')
    .router('r1', routerOptions)
    .vif('p1', 'sw1', '00:00:00:00:01:01', '10.0.1.11')
    .vif('p2', 'sw1', '00:00:00:00:01:02', '10.0.1.12')
    .vif('q1', 'sw2', '00:00:00:00:02:01', '10.0.2.11')
    .connect('r1', 'sw1', '00:00:00:00:ff:01', ['10.0.1.1/24'])
    .connect('r1', 'sw2', '00:00:00:00:ff:02', ['10.0.2.1/24']);
}

/** The MACs of {@link twoSubnets}. */
export const MAC = {
  p1: '00:00:00:00:01:01',
  p2: '00:00:00:00:01:02',
  q1: '00:00:00:00:02:01',
  r1sw1: '00:00:00:00:ff:01',
  r1sw2: '00:00:00:00:ff:02',
} as const;
