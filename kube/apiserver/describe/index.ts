/**
 * The API-description side of kovn's Kubernetes-API front (`kovn sim
 * serve`): the catalog of served resources (built-ins from the registry,
 * CRDs from kovn's manifests and from the API), discovery, Tables for
 * `kubectl get`, and validation against CRD schemas. The HTTP side
 * (kube/apiserver/http/) calls it through `ApiDescription` (../types.ts).
 */
export { builtinResources, SERVED_VERBS } from './builtins.ts';
export { createCatalog, type MutableCatalog } from './catalog.ts';
export { readCrd } from './crd.ts';
export {
  type ApiDescriptionOptions,
  createApiDescription,
  DescribeError,
  type LiveApiDescription,
  readCrdFiles,
} from './description.ts';
export { discover, VERSION_INFO } from './discovery.ts';
export { jsonPathValues, renderTable } from './tables.ts';
export { pruneObject, validateObject } from './validate.ts';
