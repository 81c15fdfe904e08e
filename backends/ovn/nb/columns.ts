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
import type { GatewayChassis, LspType, TableName, Tables } from '../../../model/topology/index.ts';
import { OvnBackendError } from './errors.ts';
import { IDENTITY, NAME_ID, type NbRow, decodeIds, encodeIds } from './tables.ts';
import type { NbView } from './view.ts';

/** NB columns by name, native values (the operation builder's view of a row). */
export type Columns = Record<string, unknown>;

/** The plain columns of an NB row of model table `T`, as the codec writes them (typed by the generated row). */
export type NbColumns<T extends TableName> = { -readonly [C in Exclude<keyof NbRow<T>, '_uuid'>]?: NbRow<T>[C] };

/** What `fromNb` may ask about the rows around the one it reads. */
export interface ReadContext {
  readonly view: NbView;
  /** Memoised match parsing (the same strings come back on every read). */
  readonly parse: (text: string, where: () => string) => MatchExpr;
}

type Codec<T extends TableName> = {
  readonly toNb: (row: Tables[T], key: string) => NbColumns<T>;
  readonly fromNb: (row: NbRow<T>, ctx: ReadContext) => Tables[T] | undefined;
};

const nonEmpty = (v: string): string | undefined => (v !== '' ? v : undefined);
const strs = <S extends string>(v: readonly S[]): S[] => [...v];
const attrs = <V>(v: Readonly<Record<string, V>>): Record<string, V> => ({ ...v });
const uniq = <S extends string>(xs: readonly S[]): S[] => (xs.length < 2 ? [...xs] : [...new Set(xs)]);
/** Drops undefined fields so rows read back look like rows written by hand. */
const clean = <R extends object>(o: R): R => {
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
  return o;
};

/**
 * A switch port's NB `type` (a free string in the schema) as the model's type. A type kovn never writes (set by
 * hand on a kovn port) is kept as read, not refused: the plan then sees it differ from the desired type and writes
 * that back, where refusing it would fail the whole read.
 */
const lspType = (n: NbRow<'switchPort'>): LspType => n.type as LspType;

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

function refNames(uuids: readonly string[], name: (u: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const u of uuids) {
    const n = name(u);
    if (n !== undefined) out.push(n);
  }
  return out;
}

const parentName = (ctx: ReadContext, table: TableName, row: { readonly _uuid: string }) =>
  ctx.view.parentOf(table, row._uuid)?.name;
const dhcpName = (ctx: ReadContext, u: string | undefined) =>
  u === undefined ? undefined : ctx.view.nameOf('dhcpOptions', u);

const CODECS: { readonly [T in TableName]: Codec<T> } = {
  switch: {
    toNb: (r, k) => ({ name: r.name, other_config: r.otherConfig, external_ids: ids('switch', r, k) }),
    fromNb: (n, { view }) => ({
      name: n.name,
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
      tag: r.tag,
      external_ids: ids('switchPort', r, k),
    }),
    fromNb: (n, ctx) => {
      const sw = parentName(ctx, 'switchPort', n);
      if (sw === undefined) return undefined;
      return clean({
        name: n.name,
        switch: sw,
        type: lspType(n),
        addresses: strs(n.addresses),
        portSecurity: strs(n.port_security),
        options: attrs(n.options),
        enabled: n.enabled,
        parentName: n.parent_name,
        tagRequest: n.tag_request,
        tag: n.tag,
        dhcpv4Options: dhcpName(ctx, n.dhcpv4_options),
        dhcpv6Options: dhcpName(ctx, n.dhcpv6_options),
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
      return clean({
        name: n.name,
        router,
        mac: n.mac,
        networks: strs(n.networks),
        peer: n.peer,
        enabled: n.enabled,
        gatewayChassis: readGatewayChassis(ctx.view, n),
        options: attrs(n.options),
        ipv6RaConfigs: Object.keys(n.ipv6_ra_configs).length > 0 ? attrs(n.ipv6_ra_configs) : undefined,
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
      return clean({
        attachTo: { kind: p.slot.table === 'switch' ? ('switch' as const) : ('port-group' as const), name: p.name },
        direction: n.direction,
        priority: n.priority,
        match: ctx.parse(n.match, () => `ACL ${n._uuid}`),
        action: n.action,
        name: n.name,
        log: n.log,
        severity: n.severity,
        meter: n.meter,
        label: n.label !== 0 || explicit.has('label') ? n.label : undefined,
        options: attrs(n.options),
        externalIds,
      });
    },
  },
  addressSet: {
    toNb: (r, k) => ({ name: r.name, addresses: uniq(r.addresses), external_ids: ids('addressSet', r, k) }),
    fromNb: (n) => ({
      name: n.name,
      addresses: strs(n.addresses),
      externalIds: decodeIds(n.external_ids).externalIds,
    }),
  },
  portGroup: {
    toNb: (r, k) => ({ name: r.name, external_ids: ids('portGroup', r, k) }),
    fromNb: (n, { view }) => ({
      name: n.name,
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
        externalPortRange: explicit.has('externalPortRange') ? n.external_port_range : nonEmpty(n.external_port_range),
        gatewayPort: n.gateway_port === undefined ? undefined : ctx.view.nameOf('routerPort', n.gateway_port),
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
        priority: n.priority,
        match: ctx.parse(n.match, () => `Logical_Router_Policy ${n._uuid}`),
        action: n.action,
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
      action: clean({ dscp: r.action.dscp }) as Readonly<Record<string, number>>,
      bandwidth: clean({ rate: r.bandwidth.rate, burst: r.bandwidth.burst }) as Readonly<Record<string, number>>,
      external_ids: ids('qos', r, k),
    }),
    fromNb: (n, ctx) => {
      const sw = parentName(ctx, 'qos', n);
      if (sw === undefined) return undefined;
      return {
        switch: sw,
        direction: n.direction,
        priority: n.priority,
        match: ctx.parse(n.match, () => `QoS ${n._uuid}`),
        action: attrs(n.action),
        bandwidth: attrs(n.bandwidth),
        externalIds: decodeIds(n.external_ids).externalIds,
      };
    },
  },
  dhcpOptions: {
    toNb: (r, k) => ({ cidr: r.cidr, options: r.options, external_ids: ids('dhcpOptions', r, k) }),
    fromNb: (n) => {
      const name = n.external_ids[NAME_ID];
      if (name === undefined) return undefined;
      return {
        name,
        cidr: n.cidr,
        options: attrs(n.options),
        externalIds: decodeIds(n.external_ids).externalIds,
      };
    },
  },
};

function readGatewayChassis(view: NbView, lrp: NbRow<'routerPort'>): GatewayChassis[] {
  const out: GatewayChassis[] = [];
  for (const u of lrp.gateway_chassis) {
    const gc = view.get('Gateway_Chassis', u);
    if (gc !== undefined) out.push({ chassisName: gc.chassis_name, priority: gc.priority });
  }
  return out;
}

/**
 * The plain NB columns of a model row (uuid references excluded).
 *
 * @example toNbColumns('addressSet', { name: 'as0', addresses: ['10.0.0.1'], externalIds: {} }, 'as0')
 * // { name: 'as0', addresses: ['10.0.0.1'], external_ids: { vendor: 'kovn' } }
 */
export function toNbColumns<T extends TableName>(table: T, row: Tables[T], key: string): NbColumns<T> {
  return (CODECS[table] as Codec<T>).toNb(row, key);
}

/** The model row of an owned NB row; undefined when it hangs off no owned parent (kovn cannot name it). */
export function fromNbRow<T extends TableName>(table: T, row: NbRow<T>, ctx: ReadContext): Tables[T] | undefined {
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
