/** Service (v1): the fields Kube-OVN's load balancers act on (see ../support.ts). */
import type { FieldSupport, KindSupport } from '../support.ts';
import { acted as annotation, ignored, OVN } from './annotations.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });

export const SERVICE_SUPPORT: KindSupport = {
  kind: 'Service',
  apiVersion: 'v1',
  annotationPrefixes: [OVN],
  fields: [
    {
      path: 'spec.type',
      state: 'limited',
      note: "node ports and load-balancer ingress are kube-proxy's and the cloud's: only the cluster IP (and externalIPs) are load balancers",
      verdict: 'none',
    },
    acted('spec.clusterIP', "inside the service CIDR, never a pod's address"),
    acted('spec.clusterIPs'),
    acted('spec.externalIPs'),
    acted('spec.selector'),
    acted('spec.ports[].name'),
    acted('spec.ports[].protocol'),
    acted('spec.ports[].port'),
    acted('spec.ports[].targetPort'),
    { path: 'spec.ports[].nodePort', state: 'ignored', note: "node ports are kube-proxy's", verdict: 'none' },
    { path: 'spec.ports[].appProtocol', state: 'ignored', note: 'a hint for layer-7 tools', verdict: 'none' },
    acted('spec.sessionAffinity'),
    {
      path: 'spec.sessionAffinityConfig',
      state: 'limited',
      note: "the session load balancers' affinity_timeout is fixed (10800 s), as Kube-OVN's; a probe does not outlast it",
      verdict: 'none',
    },
    {
      path: 'spec.internalTrafficPolicy',
      state: 'ignored',
      note: 'Local (node-local endpoints only) is not modelled: every ready endpoint is a backend',
      inert: (v) => v === undefined || v === null || v === '' || v === 'Cluster',
    },
    {
      path: 'spec.externalTrafficPolicy',
      state: 'ignored',
      note: 'applies to node ports and load-balancer ingress, which are not probed',
      verdict: 'none',
      inert: () => true,
    },
    {
      path: 'spec.publishNotReadyAddresses',
      state: 'ignored',
      note: 'the scenario runner derives EndpointSlices from ready pods only',
    },
    acted('spec.ipFamilies', 'the cluster IPs decide the families'),
    acted('spec.ipFamilyPolicy', 'the cluster IPs decide the families'),
  ],
  annotations: [
    annotation(`${OVN}vpc`, "the VPC whose load balancers carry the Service's VIPs"),
    annotation(
      `${OVN}switch_lb_vip`,
      "the VIPs of the Service a SwitchLBRule makes (Kube-OVN's endpoint_slice.go): they replace its cluster IPs",
    ),
    annotation(
      `${OVN}logical_router`,
      "the VPC whose load balancers carry the VIPs, before the endpoints' VPC (Kube-OVN's getCustomServiceVpcAndSubnet)",
    ),
    annotation(`${OVN}logical_switch`, 'read with logical_router, as Kube-OVN reads them together'),
    ignored(`${OVN}service_external_ip_from_subnet`, 'LoadBalancer addresses from a subnet are not modelled yet'),
    ignored(`${OVN}service_health_check`, 'load balancer health checks are not modelled: every ready endpoint is up'),
    ignored(`${OVN}lb_svc_img`, 'LoadBalancer Services in VPCs are not modelled yet', { verdict: 'none' }),
  ],
};
