/**
 * kubeovn.io/v1 Vpc: what kovn does with each spec field
 * (pkg/apis/kubeovn/v1/vpc.go; see ../support.ts for the states).
 */
import { type FieldSupport, type KindSupport, zero } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const BFD = 'BFD sessions are not modelled: every route and next hop counts as up';

export const VPC_SUPPORT: KindSupport = {
  kind: 'Vpc',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec', 'spec.staticRoutes[]', 'spec.policyRoutes[]', 'spec.vpcPeerings[]'],
  fields: [
    acted('spec.namespaces', "pods of these namespaces go to the VPC's defaultSubnet when no Subnet binds them"),
    acted('spec.defaultSubnet'),
    acted('spec.staticRoutes[]'),
    acted('spec.staticRoutes[].policy'),
    acted('spec.staticRoutes[].cidr'),
    acted('spec.staticRoutes[].nextHopIP'),
    acted('spec.staticRoutes[].ecmpMode'),
    acted('spec.staticRoutes[].routeTable'),
    { path: 'spec.staticRoutes[].bfdId', state: 'ignored', note: BFD },
    acted('spec.policyRoutes[]'),
    acted('spec.policyRoutes[].priority'),
    acted('spec.policyRoutes[].match'),
    acted('spec.policyRoutes[].action'),
    acted('spec.policyRoutes[].nextHopIP'),
    acted('spec.vpcPeerings[]'),
    acted('spec.vpcPeerings[].remoteVpc'),
    acted('spec.vpcPeerings[].localConnectIP'),
    acted(
      'spec.enableExternal',
      "a custom VPC's gateway port `<vpc>-<subnet>` on its external subnet, on the nodes labelled ovn.kubernetes.io/external-gw=true (the default VPC's, from the ovn-external-gw-config ConfigMap, is not modelled)",
    ),
    acted('spec.extraExternalSubnets'),
    {
      path: 'spec.enableBfd',
      state: 'limited',
      note: "no BFD row and no BFD ECMP routes for `enableEcmp` subnets (Kube-OVN's reconcileCustomVpcBfdStaticRoute): the VPC routes by its staticRoutes, every next hop up",
      limitation: (v) => (v === true ? 'BFD and its ECMP routes are not written: next hops count as up' : undefined),
    },
    {
      path: 'spec.bfdPort',
      state: 'ignored',
      note: BFD,
      inert: (v) => zero(v) || (typeof v === 'object' && v !== null && (v as { enabled?: unknown }).enabled !== true),
    },
  ],
};
