/**
 * kubeovn.io/v1 IP: the durable record of an address (pkg/apis/kubeovn/v1/ip.go;
 * see ../support.ts for the states). The controller writes IP objects; at
 * start-up it reads them back as allocations (controller/restore.ts).
 */
import type { FieldSupport, KindSupport } from '../support.ts';

const acted = (path: string, note?: string): FieldSupport => ({ path, state: 'acted', ...(note ? { note } : {}) });
const ATTACH = 'attachment networks (Multus) are not modelled; probes use the primary interface';

export const IP_SUPPORT: KindSupport = {
  kind: 'IP',
  apiVersion: 'kubeovn.io/v1',
  closed: ['spec'],
  fields: [
    acted(
      'spec.podName',
      "an IP object whose pod does not exist is removed at start-up (Kube-OVN's IP GC), a StatefulSet pod's excepted",
    ),
    acted('spec.namespace'),
    acted('spec.subnet'),
    acted('spec.nodeName'),
    acted('spec.ipAddress'),
    acted('spec.v4IpAddress'),
    acted('spec.v6IpAddress'),
    acted('spec.macAddress'),
    acted('spec.podType'),
    { path: 'spec.attachSubnets', state: 'ignored', note: ATTACH, verdict: 'none' },
    { path: 'spec.attachIps', state: 'ignored', note: ATTACH, verdict: 'none' },
    { path: 'spec.attachMacs', state: 'ignored', note: ATTACH, verdict: 'none' },
    {
      path: 'spec.containerID',
      state: 'ignored',
      note: "the container runtime's id is the node agent's",
      verdict: 'none',
    },
  ],
};
