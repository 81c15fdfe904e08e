/**
 * kubeovn.io/v1 ProviderNetwork and Vlan (pkg/apis/kubeovn/v1/provider-network.go,
 * vlan.go; see ../support.ts for the states). What reaches what on an
 * underlay network depends on the Vlan's id and provider, which become the
 * localnet port's tag and network_name; how each node's bridge is wired
 * (interfaces, excluded nodes) is the node agent's and changes no probe:
 * every node is on the provider network.
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const AGENT = "the node agent's wiring of the provider bridge; every node is on the network in kovn";
const agent = (path: string): FieldSupport => ({ path, state: 'ignored', note: AGENT, verdict: 'none' });

export const PROVIDER_NETWORK_SUPPORT: KindSupport = {
  kind: 'ProviderNetwork',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    { path: 'spec.defaultInterface', state: 'acted', note: 'required; the interface itself is the node agent’s' },
    agent('spec.customInterfaces'),
    {
      path: 'spec.excludeNodes',
      state: 'ignored',
      note: 'pods of an underlay subnet on an excluded node are still placed and wired',
      inert: (v) => Array.isArray(v) && v.length === 0,
    },
    agent('spec.exchangeLinkName'),
    agent('spec.autoCreateVlanSubinterfaces'),
    agent('spec.preserveVlanInterfaces'),
    agent('spec.vlanInterfaces'),
    {
      path: 'spec.nodeSelector',
      state: 'ignored',
      note: 'every node is on the provider network',
      inert: (v) => v === null || (typeof v === 'object' && Object.keys(v as object).length === 0),
    },
  ],
};

export const VLAN_SUPPORT: KindSupport = {
  kind: 'Vlan',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    { path: 'spec.id', state: 'acted', note: "the localnet port's tag (0: untagged)" },
    {
      path: 'spec.provider',
      state: 'acted',
      note: "the localnet port's network_name (empty: Kube-OVN's default provider name, `provider`)",
    },
    {
      path: 'spec.vlanId',
      state: 'ignored',
      note: "deprecated; Kube-OVN's controller does not read it either (id is the VLAN)",
      verdict: 'none',
    },
    {
      path: 'spec.providerInterfaceName',
      state: 'ignored',
      note: "deprecated; Kube-OVN's controller does not read it either (provider is the network)",
      verdict: 'none',
    },
  ],
};
