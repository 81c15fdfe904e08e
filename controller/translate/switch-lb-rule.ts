/**
 * SwitchLBRule → the objects Kube-OVN's pkg/controller/switch_lb_rule.go
 * creates for it, as pure functions: the headless Service `slr-<name>` in
 * `spec.namespace` (ClusterIP None, the VIP in `ovn.kubernetes.io/switch_lb_vip`,
 * the selector's `key:value` entries, the ports with their target ports, the
 * session affinity, IP families from the VIP; the rule's `logical_router` and
 * `logical_switch` annotations copied: generateHeadlessService,
 * setUserDefinedNetwork), and for `spec.endpoints` the backends. Kube-OVN
 * writes an Endpoints object there (generateEndpoints), which Kubernetes'
 * EndpointSlice mirroring controller turns into EndpointSlices; kovn, which
 * reads slices only, writes the mirrored slice itself. The Service handler
 * then puts `<vip>:<port>` on the VPC's load balancers as for any Service
 * (Kube-OVN's endpoint_slice.go).
 */
import { tryParseIP } from '../../model/addr/index.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import type { SwitchLBRuleView } from '../../kube/objects/services.ts';

/** Kube-OVN's generateSvcName. */
export const slrServiceName = (rule: string): string => `slr-${rule}`;

export const SWITCH_LB_VIP_ANNOTATION = 'ovn.kubernetes.io/switch_lb_vip';
/** The label the mirroring controller puts on the slices it writes (Kubernetes' endpointslicemirroring). */
export const MIRRORED_BY = 'endpointslicemirroring-controller.k8s.io';

const familyOf = (ip: string): 'IPv4' | 'IPv6' => (tryParseIP(ip.trim())?.family === 6 ? 'IPv6' : 'IPv4');

/**
 * The Service Kube-OVN makes for a rule. With `spec.endpoints` the selector
 * is dropped ("avoid conflicts between selectors and user-defined endpoints").
 *
 * @example slrService(rule).metadata.name // 'slr-web'
 */
export function slrService(rule: SwitchLBRuleView): KubeObject {
  const families = [...new Set(rule.vip.split(',').map(familyOf))].sort();
  const annotations: Record<string, string> = { [SWITCH_LB_VIP_ANNOTATION]: rule.vip };
  for (const k of ['ovn.kubernetes.io/logical_router', 'ovn.kubernetes.io/logical_switch']) {
    const v = rule.annotations[k];
    if (v) annotations[k] = v;
  }
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: slrServiceName(rule.name), namespace: rule.ruleNamespace, annotations },
    spec: {
      type: 'ClusterIP',
      clusterIP: 'None',
      clusterIPs: ['None'],
      ...(rule.endpoints.length > 0 ? {} : { selector: { ...rule.selector } }),
      ports: rule.ports.map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        protocol: p.protocol,
        port: p.port,
        targetPort: p.targetPort,
      })),
      sessionAffinity: rule.sessionAffinity,
      ipFamilies: families,
      ipFamilyPolicy: families.length > 1 ? 'PreferDualStack' : 'SingleStack',
    },
  };
}

/**
 * The EndpointSlices mirrored from the Endpoints Kube-OVN writes for
 * `spec.endpoints` (one per address family; none without endpoints).
 *
 * @example slrEndpointSlices(rule).map((s) => s.metadata.name) // ['slr-db-ipv4']
 */
export function slrEndpointSlices(rule: SwitchLBRuleView): KubeObject[] {
  const svc = slrServiceName(rule.name);
  return (['IPv4', 'IPv6'] as const).flatMap((family) => {
    const addrs = rule.endpoints.filter((e) => familyOf(e) === family);
    if (addrs.length === 0) return [];
    return [
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${svc}-${family.toLowerCase()}`,
          namespace: rule.ruleNamespace,
          labels: { 'kubernetes.io/service-name': svc, 'endpointslice.kubernetes.io/managed-by': MIRRORED_BY },
        },
        addressType: family,
        ports: rule.ports.map((p) => ({
          ...(p.name ? { name: p.name } : {}),
          protocol: p.protocol,
          port: p.targetPort,
        })),
        endpoints: addrs.map((a) => ({ addresses: [a], conditions: { ready: true } })),
      },
    ];
  });
}

/** The rule's status as Kube-OVN writes it: `service` `<ns>/slr-<name>`, `ports` `80/TCP,53/UDP`. */
export function slrStatus(rule: SwitchLBRuleView): { service: string; ports: string } {
  return {
    service: `${rule.ruleNamespace}/${slrServiceName(rule.name)}`,
    ports: rule.ports.map((p) => `${p.port}/${p.protocol}`).join(','),
  };
}
