/**
 * The OpenAPI v2 document as kubectl 1.20 downloads it: `GET /openapi/v2`
 * with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`,
 * decoded as gnostic's `openapi.v2.Document` message (kubectl accepts no
 * JSON there). Only what kubectl reads is encoded: the definitions
 * (schemas with type, format, description, required, enum, bounds, items,
 * properties, additionalProperties, $ref and the `x-` vendor extensions,
 * whose values travel as YAML text) and the document's version fields.
 * `decodeOpenApiV2` reads it back (tests, and a check that what we send is
 * what we meant).
 */
import { decodeMessage, encodeMessage, type Message, type MessageDescriptor } from './proto.ts';

/** The media type kubectl asks for. */
export const OPENAPI_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const ANY: MessageDescriptor = { name: 'Any', fields: [{ no: 2, name: 'yaml', type: 'string' }] };
const NAMED_ANY: MessageDescriptor = {
  name: 'NamedAny',
  fields: [
    { no: 1, name: 'name', type: 'string' },
    { no: 2, name: 'value', type: ANY },
  ],
};
const TYPE_ITEM: MessageDescriptor = {
  name: 'TypeItem',
  fields: [{ no: 1, name: 'value', type: 'string', repeated: true }],
};
const ITEMS_ITEM: MessageDescriptor = {
  name: 'ItemsItem',
  fields: [{ no: 1, name: 'schema', type: () => SCHEMA, repeated: true }],
};
const NAMED_SCHEMA: MessageDescriptor = {
  name: 'NamedSchema',
  fields: [
    { no: 1, name: 'name', type: 'string' },
    { no: 2, name: 'value', type: () => SCHEMA },
  ],
};
const PROPERTIES: MessageDescriptor = {
  name: 'Properties',
  fields: [{ no: 1, name: 'additionalProperties', type: NAMED_SCHEMA, repeated: true }],
};
const ADDITIONAL: MessageDescriptor = {
  name: 'AdditionalPropertiesItem',
  fields: [
    { no: 1, name: 'schema', type: () => SCHEMA, oneof: true },
    { no: 2, name: 'boolean', type: 'bool', oneof: true },
  ],
};
const SCHEMA: MessageDescriptor = {
  name: 'Schema',
  fields: [
    { no: 1, name: '$ref', type: 'string' },
    { no: 2, name: 'format', type: 'string' },
    { no: 3, name: 'title', type: 'string' },
    { no: 4, name: 'description', type: 'string' },
    { no: 5, name: 'default', type: ANY },
    { no: 6, name: 'multipleOf', type: 'double' },
    { no: 7, name: 'maximum', type: 'double' },
    { no: 8, name: 'exclusiveMaximum', type: 'bool' },
    { no: 9, name: 'minimum', type: 'double' },
    { no: 10, name: 'exclusiveMinimum', type: 'bool' },
    { no: 11, name: 'maxLength', type: 'int64' },
    { no: 12, name: 'minLength', type: 'int64' },
    { no: 13, name: 'pattern', type: 'string' },
    { no: 14, name: 'maxItems', type: 'int64' },
    { no: 15, name: 'minItems', type: 'int64' },
    { no: 16, name: 'uniqueItems', type: 'bool' },
    { no: 17, name: 'maxProperties', type: 'int64' },
    { no: 18, name: 'minProperties', type: 'int64' },
    { no: 19, name: 'required', type: 'string', repeated: true },
    { no: 20, name: 'enum', type: ANY, repeated: true },
    { no: 21, name: 'additionalProperties', type: ADDITIONAL },
    { no: 22, name: 'type', type: TYPE_ITEM },
    { no: 23, name: 'items', type: ITEMS_ITEM },
    { no: 25, name: 'properties', type: PROPERTIES },
    { no: 31, name: 'vendorExtension', type: NAMED_ANY, repeated: true },
  ],
};
const INFO: MessageDescriptor = {
  name: 'Info',
  fields: [
    { no: 1, name: 'title', type: 'string' },
    { no: 2, name: 'version', type: 'string' },
  ],
};
const DEFINITIONS: MessageDescriptor = {
  name: 'Definitions',
  fields: [{ no: 1, name: 'additionalProperties', type: NAMED_SCHEMA, repeated: true }],
};
const DOCUMENT: MessageDescriptor = {
  name: 'Document',
  fields: [
    { no: 1, name: 'swagger', type: 'string' },
    { no: 2, name: 'info', type: INFO },
    { no: 8, name: 'paths', type: { name: 'Paths', fields: [] } },
    { no: 9, name: 'definitions', type: DEFINITIONS },
  ],
};

type Json = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SCALARS = [
  '$ref',
  'format',
  'title',
  'description',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
] as const;
const yamlOf = (v: unknown): Message => ({ yaml: JSON.stringify(v) });

/** A JSON v2 schema as gnostic's Schema message. */
function toSchema(s: Json): Message {
  const out: Record<string, unknown> = {};
  for (const k of SCALARS) if (s[k] !== undefined) out[k] = s[k];
  if (typeof s.type === 'string') out.type = { value: [s.type] };
  if (Array.isArray(s.enum)) out.enum = s.enum.map(yamlOf);
  if (s.default !== undefined) out.default = yamlOf(s.default);
  if (isObj(s.items)) out.items = { schema: [toSchema(s.items)] };
  if (isObj(s.properties)) {
    out.properties = {
      additionalProperties: Object.entries(s.properties).map(([name, v]) => ({ name, value: toSchema(v as Json) })),
    };
  }
  if (isObj(s.additionalProperties)) out.additionalProperties = { schema: toSchema(s.additionalProperties) };
  else if (typeof s.additionalProperties === 'boolean') out.additionalProperties = { boolean: s.additionalProperties };
  const ext = Object.entries(s).filter(([k]) => k.startsWith('x-'));
  if (ext.length > 0) out.vendorExtension = ext.map(([name, v]) => ({ name, value: yamlOf(v) }));
  return out;
}

/** gnostic's Schema message back as a JSON v2 schema. */
function fromSchema(m: Message): Json {
  const out: Record<string, unknown> = {};
  for (const k of SCALARS) if (m[k] !== undefined) out[k] = m[k];
  const type = (m.type as Message | undefined)?.value as string[] | undefined;
  if (type?.[0]) out.type = type[0];
  const parse = (a: unknown): unknown => JSON.parse(String((a as Message).yaml));
  if (Array.isArray(m.enum)) out.enum = m.enum.map(parse);
  if (m.default !== undefined) out.default = parse(m.default);
  const items = (m.items as Message | undefined)?.schema as Message[] | undefined;
  if (items?.[0]) out.items = fromSchema(items[0]);
  const props = (m.properties as Message | undefined)?.additionalProperties as Message[] | undefined;
  if (m.properties !== undefined) {
    out.properties = Object.fromEntries((props ?? []).map((p) => [p.name, fromSchema((p.value as Message) ?? {})]));
  }
  const extra = m.additionalProperties as Message | undefined;
  if (extra?.schema) out.additionalProperties = fromSchema(extra.schema as Message);
  else if (extra?.boolean !== undefined) out.additionalProperties = extra.boolean;
  for (const e of (m.vendorExtension as Message[] | undefined) ?? []) out[String(e.name)] = parse(e.value);
  return out;
}

/** The JSON form of the document (`swagger`, `info`, `paths`, `definitions`). */
export interface OpenApiV2 {
  readonly swagger: '2.0';
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Readonly<Record<string, never>>;
  readonly definitions: Readonly<Record<string, unknown>>;
}

/**
 * The document as kubectl reads it (gnostic's protobuf).
 *
 * @example decodeOpenApiV2(encodeOpenApiV2(doc)).definitions.V1Pod // the Pod schema
 */
export function encodeOpenApiV2(doc: OpenApiV2): Uint8Array {
  return encodeMessage(DOCUMENT, {
    swagger: doc.swagger,
    info: doc.info,
    paths: {},
    definitions: {
      additionalProperties: Object.entries(doc.definitions).map(([name, s]) => ({ name, value: toSchema(s as Json) })),
    },
  });
}

/** The protobuf document read back into its JSON form. */
export function decodeOpenApiV2(b: Uint8Array): OpenApiV2 {
  const m = decodeMessage(DOCUMENT, b);
  const defs = ((m.definitions as Message | undefined)?.additionalProperties as Message[] | undefined) ?? [];
  return {
    swagger: '2.0',
    info: {
      title: String((m.info as Message | undefined)?.title ?? ''),
      version: String((m.info as Message | undefined)?.version ?? ''),
    },
    paths: {},
    definitions: Object.fromEntries(defs.map((d) => [String(d.name), fromSchema((d.value as Message) ?? {})])),
  };
}
