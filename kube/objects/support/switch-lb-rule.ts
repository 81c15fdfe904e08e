/**
 * kubeovn.io/v1 SwitchLBRule (pkg/apis/kubeovn/v1/switch_lb_rule.go; see
 * ../support.ts for the states). Kube-OVN's pkg/controller/switch_lb_rule.go
 * turns the rule into a headless Service `slr-<name>` carrying the VIP in
 * `ovn.kubernetes.io/switch_lb_vip` (and Endpoints for `spec.endpoints`); the
 * Service handler puts the VIP on its VPC's load balancers.
 */
import type { KindSupport } from '../support.ts';
import { acted, OVN } from './annotations.ts';

export const SWITCH_LB_RULE_SUPPORT: KindSupport = {
  kind: 'SwitchLBRule',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec', 'spec.ports[]'],
  annotationPrefixes: [OVN],
  fields: [
    { path: 'spec.vip', state: 'acted', note: "the VIP on the VPC's load balancers, in the Service's annotation" },
    { path: 'spec.namespace', state: 'acted', note: 'where its Service slr-<name> is created (default: default)' },
    { path: 'spec.selector', state: 'acted', note: "key:value entries, the Service's selector" },
    {
      path: 'spec.endpoints',
      state: 'acted',
      note: 'the backends when given (the selector is then not used), as the EndpointSlice the Endpoints mirror to',
    },
    { path: 'spec.sessionAffinity', state: 'acted', note: "ClientIP: the VPC's session load balancers" },
    { path: 'spec.ports', state: 'acted' },
    { path: 'spec.ports[].name', state: 'acted' },
    { path: 'spec.ports[].port', state: 'acted' },
    { path: 'spec.ports[].targetPort', state: 'acted' },
    { path: 'spec.ports[].protocol', state: 'acted' },
  ],
  annotations: [
    acted(`${OVN}logical_router`, 'the VPC whose load balancers carry the VIP (copied to the Service)'),
    acted(`${OVN}logical_switch`, 'copied to the Service, as Kube-OVN copies it'),
    {
      key: `${OVN}service_health_check`,
      state: 'ignored',
      note: "load-balancer health checks (Load_Balancer_Health_Check, the subnet's health-check Vip) are not written",
      verdict: 'none',
      inert: (v) => v === 'false',
    },
  ],
};
