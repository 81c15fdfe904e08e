/**
 * kubeovn.io/v1 IPPool (pkg/apis/kubeovn/v1/ippool.go; see ../support.ts
 * for the states).
 */
import type { KindSupport } from '../support.ts';

export const IPPOOL_SUPPORT: KindSupport = {
  kind: 'IPPool',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    { path: 'spec.subnet', state: 'acted' },
    { path: 'spec.namespaces', state: 'acted' },
    {
      path: 'spec.ips',
      state: 'acted',
      note: "a CIDR with host bits set is read as Go's net.ParseCIDR reads it (its network), with a warning",
    },
    {
      path: 'spec.enableAddressSet',
      state: 'ignored',
      note: "the pool's address set is not created: an ACL or policy match naming it matches nothing",
    },
  ],
};
