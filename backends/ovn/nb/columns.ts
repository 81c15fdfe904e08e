/**
 * Model row ⇄ NB columns, one codec per model table. Mechanical by design:
 * the model's field names are NB's column names camel-cased.
 *
 * `toNb` gives the plain columns (everything but uuid references, which the
 * operation builder resolves) in native form (wire/datum.ts): sets as
 * arrays, maps as records, an unset optional column as undefined.
 * `fromNb` rebuilds the model row from a cached NB row. It maps absent and
 * empty values to unset and fills in no defaults (an unset route policy stays
 * unset, not 'dst-ip'), so that `plan(read(), desired)` shows no spurious
 * update; where NB cannot tell a default from unset (ACL label 0, NAT port
 * range ""), the `kovn-explicit` external id says which it was.
 */
import { type MatchExpr, parseMatch, printMatch } from '../../../model/match/index.ts';
import type { GatewayChassis, TableName, Tables } from '../../../model/topology/index.ts';
import { OvnBackendError } from './errors.ts';
import { IDENTITY, NAME_ID, decodeIds, encodeIds } from './tables.ts';
import type { AnyRow, NbView } from './view.ts';

/** NB columns by name, native values. */
export type Columns = Record<string, unknown>;

/** What `fromNb` may ask about the rows around the one it reads. */
export interface ReadContext {
  readonly view: NbView;
  /** Memoised match parsing (the same strings come back on every read). */
  readonly parse: (text: string, where: () => string) => MatchExpr;
}

type Codec<T extends TableName> = {
  readonly toNb: (row: Tables[T], key: string) => Columns;
  readonly fromNb: (row: AnyRow, ctx: ReadContext) => Tables[T] | undefined;
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strs = (v: unknown): string[] => [...((v ?? []) as readonly string[])];
const attrs = (v: unknown): Record<string, string> => ({ ...((v ?? {}) as Record<string, string>) });
const uniq = (xs: readonly string[]): string[] => (xs.length < 2 ? [...xs] : [...new Set(xs)]);
/** Drops undefined fields so rows read back look like rows written by hand. */
const clean = <R>(o: Record<string, unknown>): R => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o as R;
};

function ids(
  table: TableName,
  row: { externalIds: Readonly<Record<string, string>> },
  key: string,
  explicit: string[] = [],
): Record<string, string> {
  const id = IDENTITY[table];
  const tags = id.kind === 'name' ? {} : { [id.idKey]: key };
  return encodeIds(row.externalIds, tags, explicit, () => `${table} ${JSON.stringify(key)}`);
}

function refNames(uuids: unknown, name: (u: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const u of strs(uuids)) {
    const n = name(u);
    if (n !== undefined) out.push(n);
  }
  return out;
}

const parentName = (ctx: ReadContext, table: TableName, row: AnyRow) => ctx.view.parentOf(table, row._uuid)?.name;

const CODECS: { readonly [T in TableName]: Codec<T> } = {
  switch: {
    toNb: (r, k) => ({ name: r.name, other_config: r.otherConfig, external_ids: ids('switch', r, k) }),
    fromNb: (n, { view }) => ({
      name: n.name as string,
      loadBalancers: refNames(n.load_balancer, (u) => view.nameOf('loadBalancer', u)),
      otherConfig: attrs(n.other_config),
      externalIds: decodeIds(n.external_ids).externalIds,
    }),
  },
  switchPort: {
    toNb: (r, k) => ({
      name: r.name,
      type: r.type,
      addresses: uniq(r.addresses),
      port_security: uniq(r.portSecurity),
      options: r.options,
      enabled: r.enabled,
      parent_name: r.parentName,
      tag_request: r.tagRequest,
      external_ids: ids('switchPort', r, k),
    }),
    fromNb: (n, ctx) => {
      const sw = parentName(ctx, 'switchPort', n);
      if (sw === undefined) return undefined;
      const dhcp = (u: unknown) => (typeof u === 'string' ? ctx.view.nameOf('dhcpOptions', u) : undefined);
      return clean({
        name: n.name,
        switch: sw,
        type: n.type,
        addresses: strs(n.addresses),
        portSecurity: strs(n.port_security),
        options: attrs(n.options),
        enabled: n.enabled,
        parentName: n.parent_name,
        tagRequest: n.tag_request,
        dhcpv4Options: dhcp(n.dhcpv4_options),
        dhcpv6Options: dhcp(n.dhcpv6_options),
        externalIds: decodeIds(n.external_ids).externalIds,
      });
    },
  },
  router: {
    toNb: (r, k) => ({ name: r.name, enabled: r.enabled, options: r.options, external_ids: ids('router', r, k) }),
    fromNb: (n, { view }) =>
      clean({
        name: n.name,
        enabled: n.enabled,
        options: attrs(n.options),
        loadBalancers: refNames(n.load_balancer, (u) => view.nameOf('loadBalancer', u)),
        externalIds: decodeIds(n.external_ids).externalIds,
      }),
  },
  routerPort: {
    toNb: (r, k) => ({
      name: r.name,
      mac: r.mac,
      networks: uniq(r.networks),
      peer: r.peer,
      enabled: r.enabled,
      options: r.options,
      ipv6_ra_configs: r.ipv6RaConfigs ?? {},
      external_ids: ids('routerPort', r, k),
    }),
    fromNb: (n, ctx) => {
      const router = parentName(ctx, 'routerPort', n);
      if (router === undefined) return undefined;
      const ra = attrs(n.ipv6_ra_configs);
      return clean({
        name: n.name,
        router,
        mac: n.mac,
        networks: strs(n.networks),
        peer: n.peer,
        enabled: n.enabled,
        gatewayChassis: readGatewayChassis(ctx.view, n),
        options: attrs(n.options),
        ipv6RaConfigs: Object.keys(ra).length > 0 ? ra : undefined,
        externalIds: decodeIds(n.external_ids).externalIds,
      });
    },
  },
  acl: {
    toNb: (r, k) => ({
      action: r.action,
      direction: r.direction,
      priority: r.priority,
      match: printMatch(r.match),
      name: r.name,
      log: r.log,
      severity: r.severity,
      meter: r.meter,
      label: r.label ?? 0,
      options: r.options,
      external_ids: ids('acl', r, k, r.label === 0 ? ['label'] : []),
    }),
    fromNb: (n, ctx) => {
      const p = ctx.view.parentOf('acl', n._uuid);
      if (p === undefined) return undefined;
      const { externalIds, explicit } = decodeIds(n.external_ids);
      const label = n.label as number;
      return clean({
        attachTo: { kind: p.slot.table === 'switch' ? 'switch' : 'port-group', name: p.name },
        direction: n.direction,
        priority: n.priority,
        match: ctx.parse(n.match as string, () => `ACL ${n._uuid}`),
        action: n.action,
        name: n.name,
        log: n.log,
        severity: n.severity,
        meter: n.meter,
        label: label !== 0 || explicit.has('label') ? label : undefined,
        options: attrs(n.options),
        externalIds,
      });
    },
  },
  addressSet: {
    toNb: (r, k) => ({ name: r.name, addresses: uniq(r.addresses), external_ids: ids('addressSet', r, k) }),
    fromNb: (n) => ({
      name: n.name as string,
      addresses: strs(n.addresses),
      externalIds: decodeIds(n.external_ids).externalIds,
    }),
  },
  portGroup: {
    toNb: (r, k) => ({ name: r.name, external_ids: ids('portGroup', r, k) }),
    fromNb: (n, { view }) => ({
      name: n.name as string,
      ports: refNames(n.ports, (u) => view.nameOf('switchPort', u)),
      externalIds: decodeIds(n.external_ids).externalIds,
    }),
  },
  loadBalancer: {
    toNb: (r, k) => ({
      name: r.name,
      vips: r.vips,
      protocol: r.protocol,
      selection_fields: uniq(r.selectionFields),
      options: r.options,
      external_ids: ids('loadBalancer', r, k),
    }),
    fromNb: (n) =>
      clean({
        name: n.name,
        vips: attrs(n.vips),
        protocol: n.protocol,
        selectionFields: strs(n.selection_fields),
        options: attrs(n.options),
        externalIds: decodeIds(n.external_ids).externalIds,
      }),
  },
  nat: {
    toNb: (r, k) => ({
      type: r.type,
      external_ip: r.externalIp,
      logical_ip: r.logicalIp,
      logical_port: r.logicalPort,
      external_mac: r.externalMac,
      external_port_range: r.externalPortRange ?? '',
      options: r.options,
      external_ids: ids('nat', r, k, r.externalPortRange === '' ? ['externalPortRange'] : []),
    }),
    fromNb: (n, ctx) => {
      const router = parentName(ctx, 'nat', n);
      if (router === undefined) return undefined;
      const { externalIds, explicit } = decodeIds(n.external_ids);
      return clean({
        router,
        type: n.type,
        externalIp: n.external_ip,
        logicalIp: n.logical_ip,
        logicalPort: n.logical_port,
        externalMac: n.external_mac,
        externalPortRange: explicit.has('externalPortRange')
          ? str(n.external_port_range)
          : nonEmpty(n.external_port_range),
        gatewayPort: typeof n.gateway_port === 'string' ? ctx.view.nameOf('routerPort', n.gateway_port) : undefined,
        options: attrs(n.options),
        externalIds,
      });
    },
  },
  staticRoute: {
    toNb: (r, k) => ({
      ip_prefix: r.ipPrefix,
      nexthop: r.nexthop,
      policy: r.policy,
      output_port: r.outputPort,
      route_table: r.routeTable,
      options: r.options,
      external_ids: ids('staticRoute', r, k),
    }),
    fromNb: (n, ctx) => {
      const router = parentName(ctx, 'staticRoute', n);
      if (router === undefined) return undefined;
      return clean({
        router,
        ipPrefix: n.ip_prefix,
        nexthop: n.nexthop,
        policy: n.policy,
        outputPort: n.output_port,
        routeTable: n.route_table,
        options: attrs(n.options),
        externalIds: decodeIds(n.external_ids).externalIds,
      });
    },
  },
  routerPolicy: {
    toNb: (r, k) => ({
      priority: r.priority,
      match: printMatch(r.match),
      action: r.action,
      nexthops: uniq(r.nexthops),
      options: r.options,
      external_ids: ids('routerPolicy', r, k),
    }),
    fromNb: (n, ctx) => {
      const router = parentName(ctx, 'routerPolicy', n);
      if (router === undefined) return undefined;
      return {
        router,
        priority: n.priority as number,
        match: ctx.parse(n.match as string, () => `Logical_Router_Policy ${n._uuid}`),
        action: n.action as Tables['routerPolicy']['action'],
        nexthops: strs(n.nexthops),
        options: attrs(n.options),
        externalIds: decodeIds(n.external_ids).externalIds,
      };
    },
  },
  qos: {
    toNb: (r, k) => ({
      direction: r.direction,
      priority: r.priority,
      match: printMatch(r.match),
      action: clean({ dscp: r.action.dscp }),
      bandwidth: clean({ rate: r.bandwidth.rate, burst: r.bandwidth.burst }),
      external_ids: ids('qos', r, k),
    }),
    fromNb: (n, ctx) => {
      const sw = parentName(ctx, 'qos', n);
      if (sw === undefined) return undefined;
      return {
        switch: sw,
        direction: n.direction as Tables['qos']['direction'],
        priority: n.priority as number,
        match: ctx.parse(n.match as string, () => `QoS ${n._uuid}`),
        action: { ...(n.action as Record<string, number>) },
        bandwidth: { ...(n.bandwidth as Record<string, number>) },
        externalIds: decodeIds(n.external_ids).externalIds,
      };
    },
  },
  dhcpOptions: {
    toNb: (r, k) => ({ cidr: r.cidr, options: r.options, external_ids: ids('dhcpOptions', r, k) }),
    fromNb: (n) => ({
      name: n.external_ids[NAME_ID] as string,
      cidr: n.cidr as string,
      options: attrs(n.options),
      externalIds: decodeIds(n.external_ids).externalIds,
    }),
  },
};

function readGatewayChassis(view: NbView, lrp: AnyRow): GatewayChassis[] {
  const out: GatewayChassis[] = [];
  for (const u of strs(lrp.gateway_chassis)) {
    const gc = view.get('Gateway_Chassis', u);
    if (gc !== undefined) out.push({ chassisName: gc.chassis_name as string, priority: gc.priority as number });
  }
  return out;
}

/**
 * The plain NB columns of a model row (uuid references excluded).
 *
 * @example toNbColumns('addressSet', { name: 'as0', addresses: ['10.0.0.1'], externalIds: {} }, 'as0')
 * // { name: 'as0', addresses: ['10.0.0.1'], external_ids: { vendor: 'kovn' } }
 */
export function toNbColumns<T extends TableName>(table: T, row: Tables[T], key: string): Columns {
  return (CODECS[table] as Codec<T>).toNb(row, key);
}

/** The model row of an owned NB row; undefined when it hangs off no owned parent (kovn cannot name it). */
export function fromNbRow<T extends TableName>(table: T, row: AnyRow, ctx: ReadContext): Tables[T] | undefined {
  return (CODECS[table] as Codec<T>).fromNb(row, ctx);
}

/**
 * A match parser that remembers its last few thousand strings; throws `unreadable-row` for a match kovn cannot parse.
 */
export function memoParser(limit = 50_000): ReadContext['parse'] {
  const memo = new Map<string, MatchExpr>();
  return (text, where) => {
    const hit = memo.get(text);
    if (hit !== undefined) return hit;
    let m: MatchExpr;
    try {
      m = parseMatch(text);
    } catch (e) {
      throw new OvnBackendError(
        'unreadable-row',
        `${where()}: match ${JSON.stringify(text)} does not parse: ${(e as Error).message}`,
        {},
        { cause: e },
      );
    }
    if (memo.size >= limit) memo.clear();
    memo.set(text, m);
    return m;
  };
}

/** Equality of two native column values with OVSDB semantics (sets unordered, maps by entries, unset = empty). */
export function nativeEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    const sa = new Set((a ?? []) as readonly unknown[]);
    const sb = new Set((b ?? []) as readonly unknown[]);
    return sa.size === sb.size && [...sa].every((x) => sb.has(x));
  }
  if ((a === undefined || typeof a === 'object') && (b === undefined || typeof b === 'object')) {
    const ea = Object.entries((a ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const mb = (b ?? {}) as Record<string, unknown>;
    return ea.length === Object.values(mb).filter((v) => v !== undefined).length && ea.every(([k, v]) => mb[k] === v);
  }
  return false;
}
