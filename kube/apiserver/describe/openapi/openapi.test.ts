import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fcParams } from '../../../../test/fc.ts';
import { createCatalog } from '../catalog.ts';
import { subnetCrd, widgetCrd } from '../testing/crds.ts';
import { crdDefinition, toV2Schema } from './crd.ts';
import { openApiDocument } from './document.ts';
import { GENERATED_HEADER, renderModule } from './generate.ts';
import { decodeOpenApiV2, encodeOpenApiV2, type OpenApiV2 } from './gnostic.ts';

type Json = Record<string, unknown>;

describe('builtin.gen.ts', () => {
  it('is what generate.ts makes from the installed @kubernetes/client-node (regenerate with tsx generate.ts)', () => {
    const text = renderModule();
    expect(text.startsWith(`${GENERATED_HEADER}\n`)).toBe(true);
    expect(readFileSync(join(import.meta.dirname, 'builtin.gen.ts'), 'utf8')).toBe(text);
  });

  it('tags every served built-in kind and carries the patch strategies kubectl apply reads', () => {
    const defs = openApiDocument(createCatalog()).definitions as Record<string, Json>;
    const pod = defs.V1Pod!;
    expect(pod['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Pod' }]);
    const containers = (defs.V1PodSpec!.properties as Record<string, Json>).containers;
    expect(containers).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
    });
    expect(defs.V1PodSpec!.required).toEqual(['containers']);
    const tagged = Object.values(defs).filter((d) => d['x-kubernetes-group-version-kind'] !== undefined);
    expect(tagged).toHaveLength(21);
    for (const d of Object.values(defs)) {
      for (const ref of JSON.stringify(d).matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)) {
        expect(defs[ref[1]!], `dangling $ref ${ref[1]}`).toBeDefined();
      }
    }
  });
});

describe('CRD schemas in OpenAPI v2', () => {
  it('adds apiVersion, kind and metadata to the root and tags it with its group, version and kind', () => {
    const c = createCatalog();
    c.registerCrd(subnetCrd());
    const d = crdDefinition(c.byKind('kubeovn.io/v1', 'Subnet')!);
    expect(d['x-kubernetes-group-version-kind']).toEqual([{ group: 'kubeovn.io', version: 'v1', kind: 'Subnet' }]);
    expect(Object.keys(d.properties as Json).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect((d.properties as Json).metadata).toEqual({ $ref: '#/definitions/V1ObjectMeta' });
    expect(openApiDocument(c).definitions['io.kubeovn.v1.Subnet']).toEqual(d);
  });

  it('loosens what v2 cannot say: preserve-unknown, nullable, int-or-string, combinators, arrays without items', () => {
    expect(
      toV2Schema({
        type: 'object',
        required: ['a', 'n'],
        properties: {
          a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { x: { type: 'string' } } },
          n: { type: 'string', nullable: true },
          i: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          l: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
        },
      }),
    ).toEqual({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        n: {},
        i: { 'x-kubernetes-int-or-string': true },
        l: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    const c = createCatalog();
    c.registerCrd(widgetCrd());
    expect(crdDefinition(c.byPath('example.com', 'v1beta1', 'widgets')!)).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', version: 'v1beta1', kind: 'Widget' }],
    });
  });
});

const name = fc.stringMatching(/^[a-zA-Z$][a-zA-Z0-9.-]{0,8}$/);
const text = fc.string({ minLength: 1, maxLength: 12 });
const json = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }));
const nonZero = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => x !== 0);
const count = fc.integer({ min: 1, max: 1_000_000 });
const scalars = {
  type: fc.constantFrom('object', 'array', 'string', 'integer', 'number', 'boolean'),
  format: text,
  description: text,
  $ref: text,
  pattern: text,
  maximum: nonZero,
  minimum: nonZero,
  exclusiveMaximum: fc.constant(true),
  maxLength: count,
  minItems: count,
  required: fc.array(name, { minLength: 1, maxLength: 3 }),
  enum: fc.array(json, { minLength: 1, maxLength: 3 }),
  default: json,
  'x-kubernetes-patch-strategy': text,
  'x-kubernetes-group-version-kind': fc.array(fc.record({ group: text, version: text, kind: text }), {
    minLength: 1,
    maxLength: 2,
  }),
};
/** Schemas nested at most `depth` deep (items, properties, additionalProperties). */
const schemaAt = (depth: number): fc.Arbitrary<Json> => {
  if (depth === 0) return fc.record(scalars, { requiredKeys: [] });
  const sub = schemaAt(depth - 1);
  return fc.record(
    {
      ...scalars,
      items: sub,
      properties: fc.dictionary(name, sub, { maxKeys: 2 }),
      additionalProperties: fc.oneof(sub, fc.boolean()),
    },
    { requiredKeys: [] },
  );
};
const schema = schemaAt(3);

describe('the protobuf document', () => {
  it('reads back as the document it was made from (any schema)', () => {
    fc.assert(
      fc.property(fc.dictionary(name, schema, { maxKeys: 4 }), (definitions) => {
        const doc: OpenApiV2 = { swagger: '2.0', info: { title: 'K', version: 'v1' }, paths: {}, definitions };
        expect(decodeOpenApiV2(encodeOpenApiV2(doc))).toEqual(doc);
      }),
      fcParams(200),
    );
  });

  it('reads back the whole served document, built-ins and CRDs', () => {
    const c = createCatalog();
    c.registerCrd(subnetCrd());
    const doc = openApiDocument(c);
    expect(decodeOpenApiV2(encodeOpenApiV2(doc))).toEqual(doc);
  });
});
