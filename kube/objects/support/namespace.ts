/** Namespace (v1): what kovn reads (see ../support.ts). */
import type { KindSupport } from '../support.ts';
import { acted, ignored, OVN, output } from './annotations.ts';

export const NAMESPACE_SUPPORT: KindSupport = {
  kind: 'Namespace',
  apiVersion: 'v1',
  annotationPrefixes: [OVN],
  fields: [
    { path: 'metadata.labels', state: 'acted', note: 'every namespace also carries kubernetes.io/metadata.name' },
  ],
  annotations: [
    acted(`${OVN}logical_switch`, 'read when no Subnet or Vpc binds the namespace; written by the controller'),
    output(`${OVN}cidr`),
    output(`${OVN}exclude_ips`),
    ignored(
      `${OVN}ip_pool`,
      "Kube-OVN's controller writes the pools bound to the namespace here; kovn reads the IPPools themselves",
      {
        verdict: 'none',
      },
    ),
    ignored(
      `${OVN}network_policy_enforcement`,
      "Kube-OVN reads this annotation on NetworkPolicies (and the controller's --network-policy-enforcement), not on Namespaces",
      { verdict: 'none' },
    ),
  ],
};
