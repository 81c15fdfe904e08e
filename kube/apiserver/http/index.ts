/**
 * http/: the HTTP side of kovn's Kubernetes-API front (`kovn sim serve`):
 * HTTPS over a `ClusterSource`, routing every request through the
 * description side's `Catalog` (kube/apiserver/types.ts); CRUD, the three
 * patch types, watch streams with bookmarks and timeouts, selectors, the
 * status subresource, `Status` bodies for every refusal, Warning headers,
 * Tables, a self-signed certificate and a kubeconfig, and counters at
 * `/kovn/stats`.
 */
export { ApiHandler, type ApiHandlerOptions, type ApiStats } from './handler.ts';
export { renderKubeconfig, type KubeconfigInput } from './kubeconfig.ts';
export { parseResourcePath, type ResourcePath } from './path.ts';
export { type ApiServer, ApiServerError, type ApiServerOptions, startApiServer } from './server.ts';
export { ApiError, statusBody, type StatusBody, type StatusReason } from './status.ts';
export { selfSignedCertificate, TlsError, type TlsIdentity } from './tls.ts';
