/** NetworkPolicy (networking.k8s.io/v1): every field is acted on; annotations (see ../support.ts). */
import type { FieldSupport, KindSupport } from '../support.ts';
import { ignored, OVN } from './annotations.ts';

const acted = (path: string): FieldSupport => ({ path, state: 'acted' });
const LOG = 'ACL logging changes no verdict';

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
    ignored(`${OVN}network_policy_enforcement`, 'lax enforcement (the default block exceptions) is not modelled yet', {
      inert: (v) => v === '' || v === 'standard',
    }),
    ignored(
      `${OVN}network_policy_for`,
      'a policy for attachment networks only is not modelled: kovn applies it to the primary network',
    ),
    ignored(`${OVN}enable_log`, LOG, { verdict: 'none' }),
    ignored(`${OVN}log_acl_actions`, LOG, { verdict: 'none' }),
    ignored(`${OVN}acl_log_meter_rate`, LOG, { verdict: 'none' }),
  ],
};
