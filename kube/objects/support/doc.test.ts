import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSupport } from '../support.ts';
import { renderFieldsDoc } from './doc.ts';
import { SUPPORT_TABLES as SUPPORT } from '../../registry.ts';
import { SUBNET_SUPPORT } from './index.ts';

describe('the support tables', () => {
  it('docs/fields.md is what the tables say (npm run gen:fields)', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'fields.md'), 'utf8');
    expect(doc).toBe(renderFieldsDoc());
  });

  it('name each field once per kind, and say why for every one not fully acted on', () => {
    for (const k of SUPPORT) {
      const paths = k.fields.map((f) => f.path);
      expect(new Set(paths).size, k.kind).toBe(paths.length);
      for (const f of k.fields) if (f.state !== 'acted') expect(f.note, `${k.kind} ${f.path}`).toBeTruthy();
      for (const a of k.annotations ?? []) if (a.state !== 'acted') expect(a.note, `${k.kind} ${a.key}`).toBeTruthy();
    }
  });

  it('every Subnet spec field of Kube-OVN is in the table (pkg/apis/kubeovn/v1/subnet.go)', () => {
    const kubeOvn = [
      'default',
      'vpc',
      'protocol',
      'namespaces',
      'cidrBlock',
      'gateway',
      'excludeIps',
      'provider',
      'gatewayType',
      'gatewayNode',
      'gatewayNodeSelectors',
      'natOutgoing',
      'externalEgressGateway',
      'policyRoutingPriority',
      'policyRoutingTableID',
      'mtu',
      'private',
      'allowSubnets',
      'vlan',
      'vips',
      'logicalGateway',
      'disableGatewayCheck',
      'disableInterConnection',
      'enableDHCP',
      'dhcpV4Options',
      'dhcpV6Options',
      'enableIPv6RA',
      'ipv6RAConfigs',
      'acls',
      'allowEWTraffic',
      'natOutgoingPolicyRules',
      'u2oInterconnectionIP',
      'u2oInterconnection',
      'u2oFeatures',
      'enableLb',
      'enableEcmp',
      'enableMulticastSnoop',
      'enableExternalLBAddress',
      'routeTable',
      'namespaceSelectors',
      'nodeNetwork',
    ];
    const listed = new Set(SUBNET_SUPPORT.fields.map((f) => f.path.replace(/^spec\./, '').replace(/\[\]$/, '')));
    expect(kubeOvn.filter((f) => !listed.has(f))).toEqual([]);
  });

  it('report a default value of an ignored field as nothing, another value, an unknown field and a limitation', () => {
    const spec = {
      cidrBlock: '10.1.0.0/24',
      vlan: '',
      enableDHCP: false,
      enableExternalLBAddress: true,
      gatewayTyp: 'x',
    };
    const issues = checkSupport(SUBNET_SUPPORT, { metadata: { name: 's' }, spec });
    expect(issues.map((i) => [i.code, i.field, i.verdict])).toEqual([
      ['unsupported-field', 'spec.enableExternalLBAddress', 'may-change'],
      ['unknown-field', 'spec.gatewayTyp', 'may-change'],
    ]);
    const provider = checkSupport(SUBNET_SUPPORT, { metadata: {}, spec: { provider: 'net1.ns1' } });
    expect(provider.map((i) => [i.code, i.field])).toEqual([['limited-field', 'spec.provider']]);
    expect(checkSupport(SUBNET_SUPPORT, { metadata: {}, spec: { provider: 'ovn' } })).toEqual([]);
  });
});
