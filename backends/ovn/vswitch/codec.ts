/**
 * Open_vSwitch rows ⇄ the node agent's values (types.ts), one codec per
 * table, typed with the generated row types (vswitch.gen.ts). The plain
 * columns are per table; references are resolved for every table the same
 * way, from the description (tables.ts): names to uuids on the way in (the
 * caller says how: an existing row's uuid, or the uuid-name of a row inserted
 * in the same transaction), uuids to names on the way out.
 *
 * Like the NB codec, reading maps absent and empty values to unset and fills
 * in no defaults, so that a row read back equals the row written.
 */
import { OVS_NAME_ID, type OvsFieldSpec, type OvsRow, type OVS_TABLES, ovsFields } from './tables.ts';
import type { OvsTableName, OvsTables } from './types.ts';

/** The uuid (or uuid-name) of the row `name` of `table`, for a reference to it. */
export type UuidOf = (table: OvsTableName, name: string) => string;
/** The name of the row `uuid` of `table`; undefined when it is not known (the member is left out). */
export type NameOf = (table: OvsTableName, uuid: string) => string | undefined;

/** The columns of a row of `T` as written, typed by the generated row. */
export type OvsColumns<T extends OvsTableName> = { -readonly [C in Exclude<keyof OvsRow<T>, '_uuid'>]?: OvsRow<T>[C] };

/** The fields of `T` that reference other rows (described with a `ref`). */
type RefField<T extends OvsTableName> = {
  [K in keyof (typeof OVS_TABLES)[T]['fields']]: (typeof OVS_TABLES)[T]['fields'][K] extends { readonly ref: object }
    ? K
    : never;
}[keyof (typeof OVS_TABLES)[T]['fields']];

type Plain<T extends OvsTableName> = Omit<OvsTables[T], RefField<T> & keyof OvsTables[T]>;

type Codec<T extends OvsTableName> = {
  readonly toOvs: (row: OvsTables[T]) => OvsColumns<T>;
  readonly fromOvs: (row: OvsRow<T>) => Plain<T> | undefined;
};

const attrs = (v: Readonly<Record<string, string>>): Record<string, string> => ({ ...v });
/** external_ids with kovn's name for the row added (QoS, Queue). */
const named = (row: { name: string; externalIds: Readonly<Record<string, string>> }) => ({
  ...row.externalIds,
  [OVS_NAME_ID]: row.name,
});
/** external_ids without kovn's name key. */
const unnamed = (ids: Readonly<Record<string, string>>): Record<string, string> => {
  const { [OVS_NAME_ID]: _, ...rest } = ids;
  return rest;
};
/** Drops undefined fields so rows read back look like rows written by hand. */
const clean = <R extends object>(o: R): R => {
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
  return o;
};

const CODECS: { readonly [T in OvsTableName]: Codec<T> } = {
  root: {
    toOvs: (r) => ({ external_ids: r.externalIds, other_config: r.otherConfig }),
    fromOvs: (n) => ({ externalIds: attrs(n.external_ids), otherConfig: attrs(n.other_config) }),
  },
  bridge: {
    toOvs: (r) => ({
      name: r.name,
      fail_mode: r.failMode,
      datapath_type: r.datapathType,
      protocols: [...r.protocols],
      other_config: r.otherConfig,
      external_ids: r.externalIds,
    }),
    fromOvs: (n) =>
      clean({
        name: n.name,
        failMode: n.fail_mode,
        datapathType: n.datapath_type,
        protocols: [...n.protocols],
        otherConfig: attrs(n.other_config),
        externalIds: attrs(n.external_ids),
      }),
  },
  port: {
    toOvs: (r) => ({ name: r.name, tag: r.tag, other_config: r.otherConfig, external_ids: r.externalIds }),
    fromOvs: (n) =>
      clean({ name: n.name, tag: n.tag, otherConfig: attrs(n.other_config), externalIds: attrs(n.external_ids) }),
  },
  interface: {
    toOvs: (r) => ({
      name: r.name,
      type: r.type,
      options: r.options,
      mtu_request: r.mtuRequest,
      ingress_policing_rate: r.ingressPolicingRate,
      ingress_policing_burst: r.ingressPolicingBurst,
      external_ids: r.externalIds,
    }),
    fromOvs: (n) =>
      clean({
        name: n.name,
        type: n.type,
        options: attrs(n.options),
        mtuRequest: n.mtu_request,
        ingressPolicingRate: n.ingress_policing_rate,
        ingressPolicingBurst: n.ingress_policing_burst,
        externalIds: attrs(n.external_ids),
      }),
  },
  qos: {
    toOvs: (r) => ({ type: r.type, other_config: r.otherConfig, external_ids: named(r) }),
    fromOvs: (n) => {
      const name = n.external_ids[OVS_NAME_ID];
      if (name === undefined) return undefined;
      return { name, type: n.type, otherConfig: attrs(n.other_config), externalIds: unnamed(n.external_ids) };
    },
  },
  queue: {
    toOvs: (r) => ({ dscp: r.dscp, other_config: r.otherConfig, external_ids: named(r) }),
    fromOvs: (n) => {
      const name = n.external_ids[OVS_NAME_ID];
      if (name === undefined) return undefined;
      return clean({ name, dscp: n.dscp, otherConfig: attrs(n.other_config), externalIds: unnamed(n.external_ids) });
    },
  },
};

type Loose = Record<string, unknown>;

function encodeRef(f: OvsFieldSpec & { ref: object }, value: unknown, uuidOf: UuidOf): unknown {
  const target = (f.ref as NonNullable<OvsFieldSpec['ref']>).table;
  if (f.kind === 'set') return (value as readonly string[]).map((n) => uuidOf(target, n));
  if (f.kind === 'map')
    return Object.fromEntries(
      Object.entries(value as Readonly<Record<string, string>>).map(([k, n]) => [k, uuidOf(target, n)]),
    );
  return value === undefined ? undefined : uuidOf(target, value as string);
}

function decodeRef(f: OvsFieldSpec & { ref: object }, value: unknown, nameOf: NameOf): unknown {
  const target = (f.ref as NonNullable<OvsFieldSpec['ref']>).table;
  if (f.kind === 'set')
    return (value as readonly string[]).flatMap((u) => {
      const n = nameOf(target, u);
      return n === undefined ? [] : [n];
    });
  if (f.kind === 'map')
    return Object.fromEntries(
      Object.entries(value as Readonly<Record<string, string>>).flatMap(([k, u]) => {
        const n = nameOf(target, u);
        return n === undefined ? [] : [[k, n]];
      }),
    );
  return value === undefined ? undefined : nameOf(target, value as string);
}

/**
 * The columns of a row, references resolved with `uuidOf`.
 *
 * @example
 * toOvsColumns('port', { name: 'veth1', interfaces: ['veth1'], otherConfig: {}, externalIds: {} }, (_t, n) => `iface_${n}`)
 * // { name: 'veth1', interfaces: ['iface_veth1'], tag: undefined, other_config: {}, external_ids: {} }
 */
export function toOvsColumns<T extends OvsTableName>(table: T, row: OvsTables[T], uuidOf: UuidOf): OvsColumns<T> {
  const out = (CODECS[table] as Codec<T>).toOvs(row) as Loose;
  for (const [field, f] of ovsFields(table))
    if (f.ref !== undefined) out[f.column] = encodeRef(f as never, (row as unknown as Loose)[field], uuidOf);
  return out as OvsColumns<T>;
}

/** The value of a row read from the database; undefined for a QoS or Queue row kovn did not name. */
export function fromOvsRow<T extends OvsTableName>(table: T, row: OvsRow<T>, nameOf: NameOf): OvsTables[T] | undefined {
  const plain = (CODECS[table] as Codec<T>).fromOvs(row) as Loose | undefined;
  if (plain === undefined) return undefined;
  for (const [field, f] of ovsFields(table)) {
    if (f.ref === undefined) continue;
    const v = decodeRef(f as never, (row as unknown as Loose)[f.column], nameOf);
    if (v !== undefined) plain[field] = v;
  }
  return plain as unknown as OvsTables[T];
}
