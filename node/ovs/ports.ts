/**
 * OVS port plumbing for the node agent: a port with its one interface on a
 * bridge (br-int), found again by `external_ids:iface-id` (the logical port
 * ovn-controller binds it to), removed idempotently, and waited on until
 * ovn-controller marks it `external_ids:ovn-installed` (its flows are in).
 *
 * Each operation has an `...Ops` form that only builds operations, so that
 * a caller can put several in one transaction (as one `ovs-vsctl` command
 * line with `--` does).
 */
import {
  OvsdbConstraintViolationError,
  OvsdbTimedOutError,
  type Operation,
  type vswitch,
} from '../../backends/ovn/ovsdb/index.ts';
import { podPortName } from '../../kube/annotations.ts';
import { OvsError } from './errors.ts';
import type { CommitOptions, Vswitch } from './vswitch.ts';

export const INTEGRATION_BRIDGE = 'br-int';

/** A port and its one interface, both named `name`. */
export interface PortSpec {
  readonly name: string;
  /** Default br-int. */
  readonly bridge?: string;
  /** external_ids:iface-id, the logical switch port (Kube-OVN: `<pod>.<namespace>`). */
  readonly ifaceId?: string;
  /** Interface type: `system` (the default, a netdev of that name), `internal`, `dummy`, ... */
  readonly type?: 'system' | 'internal' | 'dummy' | (string & {});
  /** Further interface external_ids (e.g. attached-mac, pod_name). */
  readonly externalIds?: Readonly<Record<string, string>>;
  /** Interface options (e.g. tx_pcap for a dummy netdev). */
  readonly options?: Readonly<Record<string, string>>;
}

export interface PortRef {
  readonly port: vswitch.Port;
  readonly iface: vswitch.Interface;
  /** The bridge the port is on (undefined while it is on none). */
  readonly bridge: string | undefined;
}

/** What to change on an existing interface. */
export interface InterfaceChange {
  readonly options?: Readonly<Record<string, string>>;
  readonly externalIds?: Readonly<Record<string, string>>;
  readonly removeExternalIds?: readonly string[];
}

/**
 * The iface-id of a pod's interface: its logical port's name (kube/annotations.ts).
 *
 * @example podIfaceId('web-0', 'default') // 'web-0.default'
 */
export const podIfaceId = (pod: string, namespace: string, provider?: string): string =>
  podPortName(pod, namespace, provider);

function ifaceRow(spec: PortSpec) {
  return {
    name: spec.name,
    type: spec.type === undefined || spec.type === 'system' ? '' : spec.type,
    options: { ...spec.options },
    external_ids: { ...spec.externalIds, ...(spec.ifaceId === undefined ? {} : { 'iface-id': spec.ifaceId }) },
  };
}

/** The port named `name` with its interface and bridge, from the cache. */
export function getPort(vs: Vswitch, name: string): PortRef | undefined {
  const port = vs.cache.lookup('Port', 'name', name)[0];
  return port === undefined ? undefined : refOf(vs, port);
}

function refOf(vs: Vswitch, port: vswitch.Port): PortRef | undefined {
  const iface = port.interfaces.map((u) => vs.cache.get('Interface', u)).find((i) => i !== undefined);
  if (iface === undefined) return undefined;
  const bridge = vs.cache.rows('Bridge').find((b) => b.ports.includes(port._uuid));
  return { port, iface, bridge: bridge?.name };
}

/** The port whose interface has `external_ids:iface-id` = `ifaceId`. */
export function findPort(vs: Vswitch, ifaceId: string): PortRef | undefined {
  for (const iface of vs.cache.lookup('Interface', 'external_ids:iface-id', ifaceId)) {
    const port = vs.cache.rows('Port').find((p) => p.interfaces.includes(iface._uuid));
    if (port !== undefined) return refOf(vs, port);
  }
  return undefined;
}

/**
 * Operations adding the port and its interface to the bridge. The bridge may
 * be created earlier in the same transaction: a `wait` checks it exists when
 * the transaction runs (a missing one fails it with "timed out").
 */
export function addPortOps(vs: Vswitch, spec: PortSpec): Operation[] {
  const b = vs.ops;
  const bridge = spec.bridge ?? INTEGRATION_BRIDGE;
  const iface = vs.uuidName('iface');
  const port = vs.uuidName('port');
  return [
    b.wait('Bridge', [['name', '==', bridge]], { until: '!=', rows: [], columns: ['name'], timeout: 0 }),
    b.insert('Interface', ifaceRow(spec), { uuidName: iface }),
    b.insert('Port', { name: spec.name, interfaces: [iface] }, { uuidName: port }),
    b.mutate('Bridge', [['name', '==', bridge]], [['ports', 'insert', [port]]]),
  ];
}

/**
 * Adds the port, or, when a port of that name is already on that bridge,
 * sets its interface to the spec (type, options, external_ids): calling it
 * twice gives the same port. Fails with `exists` when the name is taken on
 * another bridge, `no-bridge` when the bridge does not exist.
 *
 * @example
 * await addPort(vs, { name: 'veth1', ifaceId: podIfaceId('web-0', 'default'), externalIds: { 'attached-mac': mac } });
 */
export async function addPort(vs: Vswitch, spec: PortSpec, opts: CommitOptions = {}): Promise<PortRef> {
  const bridge = spec.bridge ?? INTEGRATION_BRIDGE;
  const had = getPort(vs, spec.name);
  if (had !== undefined && had.bridge !== bridge)
    throw new OvsError('exists', `Port ${spec.name}: already on bridge ${had.bridge ?? '(none)'}, not ${bridge}`);
  try {
    if (had === undefined) await vs.commit(addPortOps(vs, spec), opts);
    else {
      const { name: _immutable, ...columns } = ifaceRow(spec);
      await vs.commit([vs.ops.update('Interface', [vs.ops.whereUuid(had.iface._uuid)], columns)], opts);
    }
  } catch (e) {
    if (e instanceof OvsdbTimedOutError && e.opIndex === 0)
      throw new OvsError('no-bridge', `Port ${spec.name}: bridge ${bridge} does not exist`, { cause: e });
    if (e instanceof OvsdbConstraintViolationError)
      throw new OvsError('exists', `Port ${spec.name}: a port or interface of that name exists`, { cause: e });
    throw e;
  }
  const ref = getPort(vs, spec.name);
  if (ref === undefined) throw new OvsError('exists', `Port ${spec.name}: not in the database after adding it`);
  return ref;
}

/** Operations removing the port (and so its interface) from its bridge; none when there is no such port. */
export function deletePortOps(vs: Vswitch, name: string): Operation[] {
  const port = vs.cache.lookup('Port', 'name', name)[0];
  if (port === undefined) return [];
  // Ports and interfaces are garbage-collected once no bridge refers to them.
  return [vs.ops.mutate('Bridge', [['ports', 'includes', [port._uuid]]], [['ports', 'delete', [port._uuid]]])];
}

/** Removes the port; resolves false when there was none (deleting twice is not an error). */
export async function deletePort(vs: Vswitch, name: string, opts: CommitOptions = {}): Promise<boolean> {
  const ops = deletePortOps(vs, name);
  if (ops.length === 0) return false;
  await vs.commit(ops, opts);
  return true;
}

/** Operations changing the options and external_ids of the interface named `name` (other keys kept). */
export function setInterfaceOps(vs: Vswitch, name: string, change: InterfaceChange): Operation[] {
  const b = vs.ops;
  const where = [['name', '==', name]] as const;
  const ops: Operation[] = [];
  // A map insert keeps an existing key's value: the keys set are deleted first.
  const set = (column: 'options' | 'external_ids', m: Readonly<Record<string, string>> | undefined) => {
    if (m === undefined || Object.keys(m).length === 0) return;
    ops.push(b.mutate('Interface', where, [[column, 'delete', Object.keys(m)]]));
    ops.push(b.mutate('Interface', where, [[column, 'insert', m]]));
  };
  set('options', change.options);
  set('external_ids', change.externalIds);
  if (change.removeExternalIds?.length)
    ops.push(b.mutate('Interface', where, [['external_ids', 'delete', [...change.removeExternalIds]]]));
  return ops;
}

/**
 * Resolves once every interface named in `names` has
 * `external_ids:ovn-installed` = "true" (ovn-controller's mark that its
 * flows are installed); `not-installed`, naming those still missing, after
 * `timeoutMs`.
 */
export async function waitInstalled(
  vs: Vswitch,
  names: readonly string[],
  opts: { readonly timeoutMs: number },
): Promise<void> {
  const missing = () =>
    names.filter((n) => vs.cache.lookup('Interface', 'name', n)[0]?.external_ids['ovn-installed'] !== 'true');
  try {
    await vs.cache.waitFor(() => missing().length === 0, {
      timeoutMs: opts.timeoutMs,
      timers: vs.timers,
      what: 'ovn-installed',
    });
  } catch (e) {
    throw new OvsError(
      'not-installed',
      `Interface ${missing().join(', ')}: external_ids:ovn-installed not set within ${opts.timeoutMs} ms`,
      { cause: e },
    );
  }
}
