/**
 * Row identity. A row's key never changes while the row lives: changing a key
 * column means deleting one row and creating another, exactly as OVN's own
 * tools see it (`ovn-nbctl acl-add` treats attachment + direction + priority +
 * match as the ACL; `lr-nat-add` type + external IP + logical IP as the NAT).
 */
import { printMatch } from '../match/index.ts';
import type { TableName, Tables } from './types.ts';

type KeyFns = { readonly [T in TableName]: (row: Tables[T]) => string };

const SEP = '|';

const KEY_FNS: KeyFns = {
  switch: (r) => r.name,
  switchPort: (r) => r.name,
  router: (r) => r.name,
  routerPort: (r) => r.name,
  addressSet: (r) => r.name,
  portGroup: (r) => r.name,
  loadBalancer: (r) => r.name,
  dhcpOptions: (r) => r.name,
  acl: (r) => [r.attachTo.kind, r.attachTo.name, r.direction, r.priority, printMatch(r.match)].join(SEP),
  qos: (r) => [r.switch, r.direction, r.priority, printMatch(r.match)].join(SEP),
  nat: (r) => [r.router, r.type, r.externalIp, r.logicalIp].join(SEP),
  staticRoute: (r) => [r.router, r.routeTable, r.policy ?? 'dst-ip', r.ipPrefix, r.nexthop].join(SEP),
  routerPolicy: (r) => [r.router, r.priority, printMatch(r.match)].join(SEP),
};

/**
 * The key of a row in its table.
 *
 * @example keyOf('nat', { router: 'ovn-cluster', type: 'snat', externalIp: '172.18.0.2', logicalIp: '10.16.0.0/16', ... })
 * // 'ovn-cluster|snat|172.18.0.2|10.16.0.0/16'
 */
export function keyOf<T extends TableName>(table: T, row: Tables[T]): string {
  return (KEY_FNS[table] as (r: Tables[T]) => string)(row);
}
