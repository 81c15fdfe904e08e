/**
 * The columns of the other kinds kovn serves, as a 1.20 API server prints
 * them: ConfigMap, Secret, ServiceAccount, NetworkPolicy, EndpointSlice,
 * Lease, Event, the RBAC kinds and CustomResourceDefinition.
 */
import type { KubeObject } from '../../cluster/types.ts';
import { ageOf } from './age.ts';
import { AGE, age, arr, col, formatSelector, int, NAME, obj, orNone, type Printer, text } from './printer-kit.ts';

const count = (...maps: unknown[]): number => maps.reduce<number>((n, m) => n + Object.keys(obj(m)).length, 0);

const CONFIG_MAP: Printer = {
  columns: [NAME, col('Data', 'integer', 0, 'Number of data entries.'), AGE],
  cells: (o, now) => [o.metadata.name, count(o.data, o.binaryData), age(o, now)],
};

const SECRET: Printer = {
  columns: [
    NAME,
    col('Type', 'string', 0, 'The type of the secret'),
    col('Data', 'integer', 0, 'Number of data entries.'),
    AGE,
  ],
  cells: (o, now) => [o.metadata.name, text(o.type) || 'Opaque', count(o.data), age(o, now)],
};

const SERVICE_ACCOUNT: Printer = {
  columns: [NAME, col('Secrets', 'string', 0, 'Number of secrets'), AGE],
  cells: (o, now) => [o.metadata.name, arr(o.secrets).length, age(o, now)],
};

const NETWORK_POLICY: Printer = {
  columns: [NAME, col('Pod-Selector', 'string', 0, 'The label selector of the pods the policy applies to'), AGE],
  cells: (o, now) => [o.metadata.name, formatSelector(obj(o.spec).podSelector), age(o, now)],
};

function slicePorts(o: KubeObject): string {
  const ports = arr(o.ports).map(obj);
  if (ports.length === 0) return '<unset>';
  return ports.map((p) => (typeof p.port === 'number' ? String(p.port) : '<unset>')).join(',');
}

function sliceEndpoints(o: KubeObject): string {
  const addresses = arr(o.endpoints).flatMap((e) => arr(obj(e).addresses).map(text));
  if (addresses.length === 0) return '<unset>';
  const shown = addresses.slice(0, 3).join(',');
  return addresses.length > 3 ? `${shown} + ${addresses.length - 3} more...` : shown;
}

const ENDPOINT_SLICE: Printer = {
  columns: [
    NAME,
    col('AddressType', 'string', 0, 'The type of addresses in the slice'),
    col('Ports', 'string', 0, 'The ports of the slice'),
    col('Endpoints', 'string', 0, 'The addresses of the slice'),
    AGE,
  ],
  cells: (o, now) => [o.metadata.name, text(o.addressType), slicePorts(o), sliceEndpoints(o), age(o, now)],
};

const LEASE: Printer = {
  columns: [NAME, col('Holder', 'string', 0, 'Name of the Lease holder'), AGE],
  cells: (o, now) => [o.metadata.name, text(obj(o.spec).holderIdentity), age(o, now)],
};

const CREATED_AT = col('Created At', 'date', 0, 'The time the object was created');
/** NAME and the creation time as RFC 3339 (roles and CRDs). */
const CREATED: Printer = {
  columns: [NAME, CREATED_AT],
  cells: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? null],
};

function subjects(o: KubeObject, kind: string): string {
  return arr(o.subjects)
    .map(obj)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${text(s.namespace)}/${text(s.name)}` : text(s.name)))
    .join(', ');
}

const BINDING: Printer = {
  columns: [
    NAME,
    col('Role', 'string', 0, 'Role to which this binding refers'),
    AGE,
    col('Users', 'string', 1, 'Users in the binding'),
    col('Groups', 'string', 1, 'Groups in the binding'),
    col('ServiceAccounts', 'string', 1, 'ServiceAccounts in the binding'),
  ],
  cells: (o, now) => {
    const ref = obj(o.roleRef);
    return [
      o.metadata.name,
      `${text(ref.kind)}/${text(ref.name)}`,
      age(o, now),
      subjects(o, 'User'),
      subjects(o, 'Group'),
      subjects(o, 'ServiceAccount'),
    ];
  },
};

const EVENT: Printer = {
  columns: [
    col('Last Seen', 'string', 0, 'Time when last this event was recorded'),
    col('Type', 'string', 0, 'Type of this event (Normal, Warning)'),
    col('Reason', 'string', 0, 'Short, machine understandable string that gives the reason for the transition'),
    col('Object', 'string', 0, 'The object this Event is about'),
    col('Message', 'string', 0, 'A human-readable description of the status of this operation.'),
    col('Subobject', 'string', 1, 'The field of the object this Event is about'),
    col('Source', 'string', 1, 'The component reporting this event'),
    col('First Seen', 'string', 1, 'The time at which the event was first recorded'),
    col('Count', 'string', 1, 'The number of times this event has occurred'),
    col('Name', 'string', 1, 'The name of the event', 'name'),
  ],
  cells(o, now) {
    const inv = obj(o.involvedObject);
    const source = obj(o.source);
    const last = o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp;
    return [
      ageOf(last, now),
      text(o.type),
      text(o.reason),
      `${text(inv.kind).toLowerCase()}/${text(inv.name)}`,
      text(o.message).trim(),
      text(inv.fieldPath),
      orNone([text(source.component), text(source.host)].filter(Boolean).join(', ')),
      ageOf(o.firstTimestamp ?? last, now),
      int(o.count) || 1,
      o.metadata.name,
    ];
  },
};

/** The printers of the other served kinds. */
export const CONFIG_PRINTERS: Readonly<Record<string, Printer>> = {
  ConfigMap: CONFIG_MAP,
  Secret: SECRET,
  ServiceAccount: SERVICE_ACCOUNT,
  NetworkPolicy: NETWORK_POLICY,
  EndpointSlice: ENDPOINT_SLICE,
  Lease: LEASE,
  Event: EVENT,
  ClusterRole: CREATED,
  Role: CREATED,
  CustomResourceDefinition: CREATED,
  ClusterRoleBinding: BINDING,
  RoleBinding: BINDING,
};
