/** CRDs for the description's tests: a Kube-OVN-shaped Subnet CRD and a custom namespaced kind. */
import type { KubeObject } from '../../../cluster/types.ts';

/**
 * A kubeovn.io/v1 Subnet CRD with a part of Kube-OVN's schema and its printer columns.
 *
 * @example registerCrd(subnetCrd())
 */
export function subnetCrd(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'subnets.kubeovn.io' },
    spec: {
      group: 'kubeovn.io',
      scope: 'Cluster',
      names: { plural: 'subnets', singular: 'subnet', kind: 'Subnet', listKind: 'SubnetList', shortNames: ['subnet'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Provider', type: 'string', jsonPath: '.spec.provider' },
            { name: 'Protocol', type: 'string', jsonPath: '.spec.protocol' },
            { name: 'CIDR', type: 'string', jsonPath: '.spec.cidrBlock' },
            { name: 'V4avail', type: 'number', jsonPath: '.status.v4availableIPs' },
            { name: 'Default', type: 'boolean', jsonPath: '.spec.default' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                status: { type: 'object', properties: { v4availableIPs: { type: 'number' } } },
                spec: {
                  type: 'object',
                  required: ['cidrBlock'],
                  properties: {
                    default: { type: 'boolean' },
                    vpc: { type: 'string' },
                    protocol: { type: 'string', enum: ['IPv4', 'IPv6', 'Dual', ''] },
                    cidrBlock: { type: 'string' },
                    gateway: { type: 'string' },
                    excludeIps: { type: 'array', items: { type: 'string' } },
                    provider: { type: 'string' },
                    vlan: { type: 'string', maxLength: 63 },
                    mtu: { type: 'integer', minimum: 68, maximum: 65535 },
                    private: { type: 'boolean' },
                    natOutgoing: { type: 'boolean', default: false },
                    allowSubnets: { type: 'array', items: { type: 'string' } },
                    natOutgoingPolicyRules: {
                      type: 'array',
                      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** A namespaced CRD of another group, as a user would create through the API. */
export function widgetCrd(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { 'x-kubernetes-int-or-string': true } } } },
            },
          },
        },
      ],
    },
  };
}
