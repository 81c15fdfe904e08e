/** NetworkPolicy (networking.k8s.io/v1): every field is acted on; annotations (see ../support.ts). */
import type { FieldSupport, KindSupport } from '../support.ts';
import { acted as actedAnnotation, ignored, OVN } from './annotations.ts';

const acted = (path: string): FieldSupport => ({ path, state: 'acted' });

export const NETWORK_POLICY_SUPPORT: KindSupport = {
  kind: 'NetworkPolicy',
  apiVersion: 'networking.k8s.io/v1',
  annotationPrefixes: [OVN],
  fields: [
    acted('spec.podSelector'),
    acted('spec.policyTypes'),
    acted('spec.ingress[].from[].podSelector'),
    acted('spec.ingress[].from[].namespaceSelector'),
    acted('spec.ingress[].from[].ipBlock'),
    acted('spec.ingress[].ports[].protocol'),
    acted('spec.ingress[].ports[].port'),
    acted('spec.ingress[].ports[].endPort'),
    acted('spec.egress[].to[].podSelector'),
    acted('spec.egress[].to[].namespaceSelector'),
    acted('spec.egress[].to[].ipBlock'),
    acted('spec.egress[].ports[].protocol'),
    acted('spec.egress[].ports[].port'),
    acted('spec.egress[].ports[].endPort'),
  ],
  annotations: [
    actedAnnotation(
      `${OVN}network_policy_enforcement`,
      'lax: the default drop blocks TCP, UDP and SCTP only (ICMP passes), DHCP allowed; read on the NetworkPolicy, as Kube-OVN reads it',
    ),
    ignored(
      `${OVN}network_policy_for`,
      'a policy for attachment networks only is not modelled: kovn applies it to the primary network',
    ),
    actedAnnotation(`${OVN}enable_log`, 'the default drop ACLs log (severity warning)'),
    actedAnnotation(`${OVN}log_acl_actions`, 'with allow, the allow ACLs log too (default: drop)'),
    {
      key: `${OVN}acl_log_meter_rate`,
      state: 'limited',
      note: "the logging ACLs name Kube-OVN's meter <pg>_<direction>_meter; the NB Meter row (its rate) is not written: kovn's model has no Meter table",
      verdict: 'none',
      limitation: (v) =>
        v.trim() === '' ? undefined : `the meter's rate ${v} is not written (no NB Meter row); the ACLs name the meter`,
    },
  ],
};
