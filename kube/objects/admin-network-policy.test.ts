import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../cluster/types.ts';
import { isBlocking } from './decode.ts';
import { decodeAdminNetworkPolicy, decodeBaselineAdminNetworkPolicy } from './objects.ts';

const anp = (spec: unknown, kind = 'AdminNetworkPolicy'): KubeObject =>
  ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind, metadata: { name: 'p' }, spec }) as KubeObject;

const ok = {
  priority: 5,
  subject: { pods: { namespaceSelector: { matchLabels: { env: 'prod' } }, podSelector: {} } },
  ingress: [
    {
      name: 'r',
      action: 'Pass',
      from: [{ namespaces: {} }],
      ports: [
        { portNumber: { protocol: 'UDP', port: 53 } },
        { portRange: { start: 80, end: 90 } },
        { namedPort: 'http' },
      ],
    },
  ],
  egress: [{ name: 'e', action: 'Deny', to: [{ networks: ['203.0.113.0/24'] }, { nodes: {} }] }],
};

describe('decoding AdminNetworkPolicy and BaselineAdminNetworkPolicy', () => {
  it('reads subject, rules, peers and the three port forms', () => {
    const d = decodeAdminNetworkPolicy(anp(ok));
    expect(d.issues).toEqual([]);
    expect(d.value.invalid).toBe(false);
    expect(d.value.subject?.kind).toBe('pods');
    expect(d.value.ingress[0]!.ports).toEqual([
      { kind: 'number', protocol: 'UDP', port: 53 },
      { kind: 'range', protocol: 'TCP', start: 80, end: 90 },
      { kind: 'named', name: 'http' },
    ]);
    expect(d.value.egress[0]!.peers.map((p) => p.kind)).toEqual(['networks', 'nodes']);
  });

  it.each([
    ['no priority', { ...ok, priority: undefined }, 'spec.priority'],
    ['two subject kinds', { ...ok, subject: { namespaces: {}, pods: ok.subject.pods } }, 'spec.subject'],
    ['an unknown action', { ...ok, ingress: [{ ...ok.ingress[0], action: 'Reject' }] }, 'spec.ingress[0].action'],
    ['no peers', { ...ok, ingress: [{ ...ok.ingress[0], from: [] }] }, 'spec.ingress[0].from'],
    [
      'a bad CIDR',
      { ...ok, egress: [{ ...ok.egress[0], to: [{ networks: ['10.0.0.0/33'] }] }] },
      'spec.egress[0].to[0].networks[0]',
    ],
    [
      'a networks peer on ingress',
      { ...ok, ingress: [{ ...ok.ingress[0], from: [{ networks: ['10.0.0.0/8'] }] }] },
      'spec.ingress[0].from[0]',
    ],
    [
      'a reversed range',
      { ...ok, ingress: [{ ...ok.ingress[0], ports: [{ portRange: { start: 90, end: 80 } }] }] },
      'spec.ingress[0].ports[0].portRange.end',
    ],
  ])('%s: a blocking issue naming the field, nothing of the policy kept', (_, spec, field) => {
    const d = decodeAdminNetworkPolicy(anp(spec));
    const blocking = d.issues.filter(isBlocking);
    expect(blocking.map((i) => [i.object, i.field])).toContainEqual(['AdminNetworkPolicy/p', field]);
    expect(d.value).toMatchObject({ invalid: true, subject: undefined, ingress: [], egress: [] });
  });

  it('a BANP has no Pass', () => {
    const d = decodeBaselineAdminNetworkPolicy(anp({ ...ok, priority: undefined }, 'BaselineAdminNetworkPolicy'));
    expect(d.issues.filter(isBlocking).map((i) => i.field)).toEqual(['spec.ingress[0].action']);
  });
});
