/** EndpointSlice (discovery.k8s.io/v1): what the Service load balancers read (see ../support.ts). */
import type { KindSupport } from '../support.ts';

export const ENDPOINT_SLICE_SUPPORT: KindSupport = {
  kind: 'EndpointSlice',
  apiVersion: 'discovery.k8s.io/v1',
  fields: [
    { path: 'addressType', state: 'acted' },
    { path: 'ports', state: 'acted' },
    { path: 'endpoints[].addresses', state: 'acted' },
    { path: 'endpoints[].conditions.ready', state: 'acted' },
    {
      path: 'endpoints[].conditions.serving',
      state: 'limited',
      note: 'ready decides, as Kube-OVN reads it',
      verdict: 'none',
    },
    { path: 'endpoints[].targetRef', state: 'acted' },
    {
      path: 'endpoints[].hints',
      state: 'ignored',
      note: 'topology-aware routing is not modelled: every ready endpoint is a backend',
      verdict: 'none',
    },
  ],
};
