/**
 * /openapi/v2 of the API front: the built-in kinds' definitions
 * (builtin.gen.ts) and one per served version of every registered CRD
 * (crd.ts), each tagged with its group, version and kind, which is how
 * kubectl finds the schema of a manifest's object. Built anew when the
 * catalog changes (a CRD registered or removed), encoded once per change.
 */
import type { Catalog } from '../../types.ts';
import { BUILTIN_DEFINITIONS } from './builtin.gen.ts';
import { crdDefinition, crdDefinitionName } from './crd.ts';
import { encodeOpenApiV2, type OpenApiV2 } from './gnostic.ts';

/**
 * The document for a catalog's current resources.
 *
 * @example openApiDocument(catalog).definitions['io.kubeovn.v1.Subnet']
 */
export function openApiDocument(catalog: Catalog): OpenApiV2 {
  const definitions: Record<string, unknown> = { ...BUILTIN_DEFINITIONS };
  for (const r of catalog.all()) {
    if (r.origin !== 'builtin') definitions[crdDefinitionName(r)] = crdDefinition(r);
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.20.2+kovn' }, paths: {}, definitions };
}

/** The document and its protobuf encoding, kept until the catalog changes. */
export function cachedOpenApi(catalog: Catalog): { json(): OpenApiV2; protobuf(): Uint8Array } {
  let json: OpenApiV2 | undefined;
  let bytes: Uint8Array | undefined;
  catalog.onChange(() => {
    json = undefined;
    bytes = undefined;
  });
  const doc = (): OpenApiV2 => {
    json ??= openApiDocument(catalog);
    return json;
  };
  return {
    json: doc,
    protobuf: () => {
      bytes ??= encodeOpenApiV2(doc());
      return bytes;
    },
  };
}
