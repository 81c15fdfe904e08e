/**
 * k8s.cni.cncf.io/v1 NetworkAttachmentDefinition (see ../support.ts for the
 * states): Kube-OVN reads the CNI configuration's type; a `kube-ovn`
 * attachment's subnet is the Subnet whose `spec.provider` is `<nad>.<ns>.ovn`.
 */
import type { KindSupport } from '../support.ts';

export const NETWORK_ATTACHMENT_DEFINITION_SUPPORT: KindSupport = {
  kind: 'NetworkAttachmentDefinition',
  apiVersion: 'k8s.cni.cncf.io/v1',
  closed: ['spec'],
  fields: [
    {
      path: 'spec.config',
      state: 'limited',
      note:
        'a kube-ovn type (or plugin) is an attachment with its own logical switch port; other CNI types ' +
        "(macvlan, ipvlan, with or without Kube-OVN's IPAM) are not modelled: their pods get no such interface",
      limitation: (v) => {
        if (typeof v !== 'string') return undefined;
        try {
          const c = JSON.parse(v) as { type?: unknown; plugins?: { type?: unknown }[] };
          const types = [c.type, ...(Array.isArray(c.plugins) ? c.plugins.map((p) => p?.type) : [])];
          return types.includes('kube-ovn')
            ? undefined
            : `CNI type ${JSON.stringify(c.type)} is not kube-ovn: its interfaces are not modelled`;
        } catch {
          return undefined;
        }
      },
    },
  ],
};
