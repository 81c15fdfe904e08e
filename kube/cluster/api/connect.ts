/**
 * The API source from a kubeconfig file, or from the pod's service account
 * when kovn runs in the cluster (`in-cluster`: the API's address from the
 * KUBERNETES_SERVICE_HOST/PORT environment, the token and CA from
 * /var/run/secrets/kubernetes.io/serviceaccount), as client-go's
 * clientcmd and rest.InClusterConfig do; both read by
 * `@kubernetes/client-node`'s KubeConfig.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../runtime/clock.ts';
import { ApiClusterSource, type ApiSourceOptions } from './source.ts';
import { kubeConfigTransport, TransportError } from './transport.ts';

export interface ConnectOptions extends ApiSourceOptions {
  /** A kubeconfig file, or `in-cluster`. */
  readonly kubeconfig: string;
  /** The kubeconfig context (default: its current one). */
  readonly context?: string;
  /**
   * The API's address instead of the kubeconfig's (`kubectl --server`); with
   * no kubeconfig (`kubeconfig` empty) a cluster of this address alone, no
   * credentials.
   */
  readonly server?: string;
  readonly clock: Clock;
  /** Connections for requests (default 32). */
  readonly maxSockets?: number;
  /** `in-cluster`: a directory the service account's files are under (tests; default the root). */
  readonly serviceAccountPrefix?: string;
}

/**
 * @example
 * const source = await connectApiSource({ kubeconfig: 'k.yaml', clock: realClock, random: Math.random });
 */
export async function connectApiSource(opts: ConnectOptions): Promise<ApiClusterSource> {
  const kc = new KubeConfig();
  if (opts.kubeconfig === '') {
    if (opts.server === undefined) throw new TransportError('no-cluster', 'neither a kubeconfig nor a server given');
    kc.loadFromClusterAndUser({ name: 'kovn', server: opts.server, skipTLSVerify: false }, { name: 'kovn' });
  } else if (opts.kubeconfig === 'in-cluster') {
    kc.loadFromCluster(opts.serviceAccountPrefix);
    if (!kc.getCurrentCluster()?.server.match(/^https?:\/\/[^:]+:\d+/))
      throw new TransportError('no-cluster', 'in-cluster: KUBERNETES_SERVICE_HOST and _PORT are not set');
  } else {
    try {
      kc.loadFromFile(opts.kubeconfig);
    } catch (cause) {
      throw new TransportError('no-cluster', `${opts.kubeconfig}: ${(cause as Error).message}`, { cause });
    }
  }
  if (opts.context !== undefined) kc.setCurrentContext(opts.context);
  if (opts.server !== undefined && opts.kubeconfig !== '') withServer(kc, opts.server);
  const transport = await kubeConfigTransport(kc, {
    clock: opts.clock,
    ...(opts.maxSockets !== undefined ? { maxSockets: opts.maxSockets } : {}),
  });
  return new ApiClusterSource(transport, opts);
}

/** Points the current context's cluster at `server`, keeping its CA and user (what `kubectl --server` does). */
function withServer(kc: KubeConfig, server: string): void {
  const current = kc.getCurrentCluster();
  if (current === null)
    throw new TransportError('no-cluster', `--server ${server}: the kubeconfig has no current cluster`);
  kc.loadFromOptions({
    clusters: kc.clusters.map((c) => (c.name === current.name ? { ...c, server } : c)),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
}
