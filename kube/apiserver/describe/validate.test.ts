import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../cluster/types.ts';
import type { ServedResource } from '../types.ts';
import { createCatalog } from './catalog.ts';
import { subnetCrd, widgetCrd } from './testing/crds.ts';
import { pruneObject, validateObject } from './validate.ts';

const catalog = createCatalog();
catalog.registerCrd(subnetCrd());
catalog.registerCrd(widgetCrd());
const subnets = catalog.byKind('kubeovn.io/v1', 'Subnet')!;
const widgets = catalog.byKind('example.com/v1', 'Widget')!;

const subnet = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name: 's1', labels: { a: 'b' } },
  spec,
  ...extra,
});
const causes = (r: ServedResource, o: KubeObject) => validateObject(r, o).map((c) => [c.reason, c.field]);

describe('validateObject', () => {
  it('accepts an object that fits its schema, metadata and all', () => {
    expect(validateObject(subnets, subnet({ cidrBlock: '10.0.0.0/24', excludeIps: ['10.0.0.1'], mtu: 1400 }))).toEqual(
      [],
    );
  });

  it('names each field that breaks the schema, with the API server reasons', () => {
    const o = subnet({ protocol: 'IPv5', mtu: 'big', excludeIps: ['a', 3], vlan: 'x'.repeat(64), private: 'yes' });
    expect(causes(subnets, o)).toEqual([
      ['FieldValueRequired', 'spec.cidrBlock'],
      ['FieldValueNotSupported', 'spec.protocol'],
      ['FieldValueTypeInvalid', 'spec.mtu'],
      ['FieldValueTypeInvalid', 'spec.excludeIps[1]'],
      ['FieldValueTooLong', 'spec.vlan'],
      ['FieldValueTypeInvalid', 'spec.private'],
    ]);
    expect(validateObject(subnets, o)[1]?.message).toBe(
      'Unsupported value: "IPv5": supported values: "IPv4", "IPv6", "Dual", ""',
    );
  });

  it('checks bounds, patterns, formats and int-or-string', () => {
    const r: ServedResource = {
      ...widgets,
      schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              port: { type: 'integer', minimum: 1, maximum: 65535 },
              name: { type: 'string', pattern: '^[a-z]+$' },
              ip: { type: 'string', format: 'ipv4' },
              cidr: { type: 'string', format: 'cidr' },
              size: { 'x-kubernetes-int-or-string': true },
              tags: { type: 'array', maxItems: 2, uniqueItems: true, items: { type: 'string' } },
            },
          },
        },
      },
    };
    const o = (spec: Record<string, unknown>): KubeObject => ({ ...subnet(spec), kind: 'Widget' });
    expect(causes(r, o({ port: 0, name: 'A1', ip: '10.0.0.300', cidr: '10.0.0.0/33', size: true }))).toEqual([
      ['FieldValueInvalid', 'spec.port'],
      ['FieldValueInvalid', 'spec.name'],
      ['FieldValueInvalid', 'spec.ip'],
      ['FieldValueInvalid', 'spec.cidr'],
      ['FieldValueTypeInvalid', 'spec.size'],
    ]);
    expect(causes(r, o({ port: 65535, name: 'ab', ip: '10.0.0.3', cidr: 'fd00::/64', size: '50%' }))).toEqual([]);
    expect(causes(r, o({ size: 3, tags: ['a', 'a', 'b'] }))).toEqual([
      ['FieldValueTooMany', 'spec.tags'],
      ['FieldValueDuplicate', 'spec.tags'],
    ]);
  });

  it('reports unknown fields as FieldValueUnknown, except under preserve-unknown-fields', () => {
    const o = subnet(
      { cidrBlock: '10.0.0.0/24', colour: 'red', natOutgoingPolicyRules: [{ anything: { goes: 1 } }] },
      { extra: 1 },
    );
    expect(validateObject(subnets, o)).toEqual([
      { reason: 'FieldValueUnknown', field: 'spec.colour', message: 'unknown field "spec.colour"' },
      { reason: 'FieldValueUnknown', field: 'extra', message: 'unknown field "extra"' },
    ]);
    const loose = catalog.byPath('example.com', 'v1beta1', 'widgets')!;
    expect(validateObject(loose, o)).toEqual([]);
  });
  it("leaves the root's apiVersion, kind and metadata to the API server, even when the schema declares metadata", () => {
    const crd = subnetCrd();
    const schema = (
      crd.spec as { versions: { schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }[] }
    ).versions[0]!.schema.openAPIV3Schema;
    schema.properties.metadata = { type: 'object' };
    schema.properties.kind = { type: 'string', enum: ['Other'] };
    const c = createCatalog();
    c.registerCrd(crd);
    const r = c.byKind('kubeovn.io/v1', 'Subnet')!;
    const o = subnet({ cidrBlock: '10.0.0.0/24', natOutgoing: true });
    expect(validateObject(r, o)).toEqual([]);
    expect(pruneObject(r, o)).toEqual(o);
  });
});

describe('validateObject for built-in kinds', () => {
  const pods = catalog.byPath('', 'v1', 'pods')!;
  const pod = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec,
  });

  it('checks them against their OpenAPI definitions, following $refs', () => {
    const ok = pod({ containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: 1, memory: '1Gi' } } }] });
    expect(validateObject(pods, ok)).toEqual([]);
    expect(causes(pods, pod({}))).toEqual([['FieldValueRequired', 'spec.containers']]);
    expect(
      causes(
        pods,
        pod({ containers: [{ name: 'c', ports: [{ containerPort: 'http', bogus: 1 }] }], hostNetwork: 'yes' }),
      ),
    ).toEqual([
      ['FieldValueTypeInvalid', 'spec.containers[0].ports[0].containerPort'],
      ['FieldValueUnknown', 'spec.containers[0].ports[0].bogus'],
      ['FieldValueTypeInvalid', 'spec.hostNetwork'],
    ]);
  });

  it('takes int-or-string ports either way and prunes unknown fields', () => {
    const services = catalog.byPath('', 'v1', 'services')!;
    const svc = (targetPort: unknown): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, targetPort }], typo: true },
    });
    expect(causes(services, svc('http'))).toEqual([['FieldValueUnknown', 'spec.typo']]);
    expect(causes(services, svc(8080))).toEqual([['FieldValueUnknown', 'spec.typo']]);
    expect(causes(services, svc(true))[0]).toEqual(['FieldValueTypeInvalid', 'spec.ports[0].targetPort']);
    expect(pruneObject(services, svc(8080)).spec).toEqual({ ports: [{ port: 80, targetPort: 8080 }] });
  });
});

describe('pruneObject', () => {
  it('drops the unknown fields and non-nullable nulls, keeping everything else, and applies defaults', () => {
    const o = subnet({ cidrBlock: '10.0.0.0/24', colour: 'red', gateway: null }, { extra: 1 });
    expect(pruneObject(subnets, o)).toEqual(subnet({ cidrBlock: '10.0.0.0/24', natOutgoing: false }));
    expect(pruneObject(subnets, subnet({ cidrBlock: '10.0.0.0/24', natOutgoing: true })).spec).toEqual({
      cidrBlock: '10.0.0.0/24',
      natOutgoing: true,
    });
  });

  it('leaves an object of a resource without a schema as it is (a kubeovn.io kind no CRD describes)', () => {
    const ips = createCatalog().byPath('kubeovn.io', 'v1', 'ips')!;
    const ip: KubeObject = { apiVersion: 'kubeovn.io/v1', kind: 'IP', metadata: { name: 'p' }, whatever: 1 };
    expect(pruneObject(ips, ip)).toBe(ip);
    expect(validateObject(ips, ip)).toEqual([]);
  });
});
