/**
 * kubeovn.io/v1 IPPool (pkg/apis/kubeovn/v1/ippool.go; see ../support.ts
 * for the states).
 */
import { formatCIDR, networkOf, tryParseCIDR } from '../../../model/addr/index.ts';
import type { KindSupport } from '../support.ts';

/** Entries with host bits set ("10.16.0.210/30"), as the network Go's net.ParseCIDR gives. */
function hostBits(v: unknown): string | undefined {
  if (!Array.isArray(v)) return undefined;
  const odd = v.flatMap((e, i) => {
    if (typeof e !== 'string' || !e.includes('/')) return [];
    const c = tryParseCIDR(e);
    if (c === undefined) return [];
    const net = formatCIDR(networkOf(c));
    return net === formatCIDR(c) ? [] : [`ips[${i}] ${e} has host bits set: read as ${net}, as Kube-OVN reads it`];
  });
  return odd.length > 0 ? odd.join('; ') : undefined;
}

export const IPPOOL_SUPPORT: KindSupport = {
  kind: 'IPPool',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    { path: 'spec.subnet', state: 'acted' },
    { path: 'spec.namespaces', state: 'acted' },
    {
      path: 'spec.ips',
      state: 'limited',
      note: "a CIDR with host bits set is read as Go's net.ParseCIDR reads it (its network), as Kube-OVN does",
      limitation: hostBits,
      verdict: 'none',
    },
    {
      path: 'spec.enableAddressSet',
      state: 'acted',
      note: 'the address set `<pool>` (`-` → `.`) of its addresses, for Subnet acls and Vpc policyRoutes matches',
    },
  ],
};
