import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../cluster/types.ts';
import { decodeNetworkPolicy, decodePod, decodeService, decodeSubnet, selects } from './objects.ts';

const obj = (kind: string, spec: unknown, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name: 'x', namespace: 'ns1' },
  spec,
  ...extra,
});

describe('decoding objects into typed views', () => {
  it('a pod: container ports, node, readiness; a wrong type is an issue naming the field, the rest still read', () => {
    const d = decodePod(
      obj(
        'Pod',
        {
          nodeName: 'n1',
          containers: [
            {
              ports: [
                { name: 'http', containerPort: 80 },
                { containerPort: '81' },
                { containerPort: 53, protocol: 'UDP' },
              ],
            },
          ],
        },
        { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } },
      ),
    );
    expect(d.value.nodeName).toBe('n1');
    expect(d.value.ports).toEqual([
      { name: 'http', containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    expect(d.value.ready).toBe(false);
    expect(d.issues).toEqual([
      expect.objectContaining({
        code: 'wrong-type',
        object: 'Pod/ns1/x',
        field: 'spec.containers[0].ports[1].containerPort',
      }),
    ]);
  });

  it('a Subnet: defaults as Kube-OVN, an unknown field reported, a bad gatewayType reported', () => {
    const d = decodeSubnet({
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 's1' },
      spec: { cidrBlock: '10.1.0.0/16', gatewayTyp: 'centralized', gatewayType: 'sideways', private: 'yes' },
    });
    expect(d.value).toMatchObject({
      cidrBlock: '10.1.0.0/16',
      provider: 'ovn',
      enableLb: true,
      gatewayType: 'distributed',
      private: false,
    });
    expect(d.issues.map((i) => [i.code, i.field])).toEqual([
      ['unknown-field', 'spec.gatewayTyp'],
      ['invalid-value', 'spec.gatewayType'],
      ['wrong-type', 'spec.private'],
    ]);
    expect(
      decodeSubnet({ apiVersion: 'kubeovn.io/v1', kind: 'Subnet', metadata: { name: 's2' }, spec: {} }).issues,
    ).toEqual([expect.objectContaining({ code: 'missing-field', field: 'spec.cidrBlock', object: 'Subnet/s2' })]);
  });

  it('a Service: cluster IPs, ports with protocol default and named target ports', () => {
    const d = decodeService(
      obj('Service', {
        clusterIP: '10.96.0.10',
        selector: { app: 'web' },
        ports: [
          { port: 80, targetPort: 'http' },
          { port: 53, protocol: 'UDP' },
        ],
      }),
    );
    expect(d.value.clusterIPs).toEqual(['10.96.0.10']);
    expect(d.value.ports).toEqual([
      { port: 80, protocol: 'TCP', targetPort: 'http' },
      { port: 53, protocol: 'UDP' },
    ]);
    expect(d.issues).toEqual([]);
  });

  it('a NetworkPolicy: policyTypes defaults, peers, ports', () => {
    const d = decodeNetworkPolicy(
      obj('NetworkPolicy', {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [
          {
            from: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } }],
            ports: [{ port: 'pg' }],
          },
        ],
        egress: [{}],
      }),
    );
    expect(d.value.failClosed).toBe(false);
    expect(d.value.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(d.value.ingress[0]!.ports).toEqual([{ protocol: 'TCP', port: 'pg' }]);
    expect(d.value.egress[0]).toEqual({ ports: [] });
    expect(d.issues).toEqual([]);
    expect(decodeNetworkPolicy(obj('NetworkPolicy', { podSelector: {} })).value.policyTypes).toEqual(['Ingress']);
  });

  it('a NetworkPolicy Kubernetes would refuse fails closed: no rules in the directions it covers, every issue named', () => {
    const bad = (spec: unknown) => decodeNetworkPolicy(obj('NetworkPolicy', spec));
    const operator = bad({
      podSelector: {},
      ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Is' }] } }] }],
    });
    expect(operator.value).toMatchObject({ failClosed: true, policyTypes: ['Ingress'], ingress: [], egress: [] });
    expect(operator.issues.map((i) => [i.code, i.field])).toEqual([
      ['invalid-value', 'spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].operator'],
    ]);
    const ports = bad({
      podSelector: {},
      egress: [
        {
          ports: [{ port: 99999 }, { port: 80, endPort: 70000 }, { port: 90, endPort: 85 }, { port: 'x', endPort: 9 }],
        },
      ],
    });
    expect(ports.value).toMatchObject({ failClosed: true, policyTypes: ['Ingress', 'Egress'], egress: [] });
    expect(ports.issues.map((i) => i.field)).toEqual([
      'spec.egress[0].ports[0].port',
      'spec.egress[0].ports[1].endPort',
      'spec.egress[0].ports[2].endPort',
      'spec.egress[0].ports[3].endPort',
    ]);
    const blocks = bad({
      podSelector: {},
      ingress: [
        {
          from: [
            { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16', 'x'] } },
            { ipBlock: { cidr: '10.0.0/8' } },
          ],
        },
      ],
    });
    expect(blocks.issues.map((i) => i.field)).toEqual([
      'spec.ingress[0].from[0].ipBlock.except[0]',
      'spec.ingress[0].from[0].ipBlock.except[1]',
      'spec.ingress[0].from[1].ipBlock.cidr',
    ]);
    // policyTypes it cannot read: both directions isolated.
    expect(bad({ podSelector: {}, policyTypes: ['Ingress', 'Sideways'] }).value.policyTypes).toEqual([
      'Ingress',
      'Egress',
    ]);
  });

  it('label selectors: matchLabels and every operator; absent selects nothing, empty everything', () => {
    const labels = { app: 'web', tier: 'front' };
    expect(selects({ matchLabels: {}, matchExpressions: [] }, labels)).toBe(true);
    expect(selects(undefined, labels)).toBe(false);
    const ex = (operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist', key = 'app', values: string[] = ['web']) =>
      selects({ matchLabels: {}, matchExpressions: [{ key, operator, values }] }, labels);
    expect([ex('In'), ex('NotIn'), ex('Exists'), ex('DoesNotExist')]).toEqual([true, false, true, false]);
    expect([ex('In', 'zone'), ex('NotIn', 'zone'), ex('Exists', 'zone'), ex('DoesNotExist', 'zone')]).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect(selects({ matchLabels: { app: 'db' }, matchExpressions: [] }, labels)).toBe(false);
  });
});

describe('ports as Kubernetes validates them', () => {
  it('a Service port or targetPort out of range, or a targetPort name that is no port name, is an issue naming it', () => {
    const d = decodeService(
      obj('Service', {
        ports: [
          { port: 80, targetPort: 70000 },
          { port: 0 },
          { port: 81, targetPort: 'Not_A_Name' },
          { port: 82, targetPort: 'http' },
        ],
      }),
    );
    expect(d.issues.map((i) => [i.code, i.field])).toEqual([
      ['invalid-value', 'spec.ports[0].targetPort'],
      ['invalid-value', 'spec.ports[1].port'],
      ['invalid-value', 'spec.ports[2].targetPort'],
    ]);
    expect(d.value.ports.find((p) => p.port === 82)?.targetPort).toBe('http');
  });

  it('a container port out of range is an issue, not a port', () => {
    const d = decodePod(obj('Pod', { containers: [{ ports: [{ containerPort: 65536 }, { containerPort: 8080 }] }] }));
    expect(d.issues.map((i) => i.field)).toEqual(['spec.containers[0].ports[0].containerPort']);
    expect(d.value.ports.map((p) => p.containerPort)).toEqual([8080]);
  });
});
