/**
 * The kubeconfig a client needs for the front: one cluster (the server URL
 * and the certificate as its authority), one user with the bearer token,
 * one context, current. Rendered as JSON, which is valid YAML: kubectl,
 * Python's client and client-node read it as they read any kubeconfig.
 */

export interface KubeconfigInput {
  /** `https://127.0.0.1:6443`. */
  readonly server: string;
  /** The server certificate (PEM), trusted as the cluster's authority. */
  readonly caCert: string;
  readonly token: string;
  /** The name of the cluster, user and context (default `kovn`). */
  readonly name?: string;
}

/**
 * @example writeFileSync('k.yaml', renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert, token }));
 */
export function renderKubeconfig(input: KubeconfigInput): string {
  const name = input.name ?? 'kovn';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: input.server,
          'certificate-authority-data': Buffer.from(input.caCert).toString('base64'),
        },
      },
    ],
    users: [{ name, user: { token: input.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
