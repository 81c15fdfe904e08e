/**
 * The backend `kovn sim serve` runs its controller on: the simulator in
 * process (`sim`), or a local OVN control plane (`ovn`: NB, SB and northd
 * in a temp dir) with the controller writing NB through kovn's OVSDB
 * client. With OVN, the served cluster tells its clients where the
 * databases are, as ConfigMap `kube-system/kovn-ovn` (`nb`, `sb`: the
 * remotes; `nbCtl`, `sbCtl`: the ovsdb-servers' unixctl sockets), which
 * `kovn ko` reads.
 */
import type { Backend } from '../backends/backend.ts';
import type { ClusterSource, KubeObject } from '../kube/cluster/types.ts';

export type ServeBackendName = 'sim' | 'ovn';

export interface ServeBackend {
  readonly backend: Backend;
  /** Where OVN's databases are (`ovn` only). */
  readonly ovn?: { readonly nb: string; readonly sb: string; readonly nbCtl: string; readonly sbCtl: string };
  close(): Promise<void>;
}

/** The ConfigMap that names the OVN databases of a served cluster. */
export const OVN_CONFIGMAP = { namespace: 'kube-system', name: 'kovn-ovn' } as const;

/**
 * @example const b = await startServeBackend('ovn'); b.ovn?.nb // 'unix:/tmp/kovn-cp-.../nb.sock'
 */
export async function startServeBackend(name: ServeBackendName): Promise<ServeBackend> {
  if (name === 'sim') {
    const { SimBackend } = await import('../backends/sim/index.ts');
    const backend = new SimBackend();
    return { backend, close: () => backend.close() };
  }
  const { startControlPlane } = await import('../backends/ovn/control-plane/index.ts');
  const { OvnBackend } = await import('../backends/ovn/index.ts');
  const cp = await startControlPlane({});
  try {
    const backend = await OvnBackend.connect({ remotes: cp.nb.remote });
    return {
      backend,
      ovn: { nb: cp.nb.remote, sb: cp.sb.remote, nbCtl: cp.nb.ctl, sbCtl: cp.sb.ctl },
      close: async () => {
        await backend.close();
        await cp.stop();
      },
    };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}

/** Writes ConfigMap kube-system/kovn-ovn with the databases' addresses (created, or replaced when the files had one). */
export async function publishOvnConfig(cluster: ClusterSource, ovn: NonNullable<ServeBackend['ovn']>): Promise<void> {
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...OVN_CONFIGMAP, labels: { 'app.kubernetes.io/managed-by': 'kovn' } },
    data: { ...ovn },
  };
  const current = await cluster.get({ kind: 'ConfigMap', ...OVN_CONFIGMAP });
  if (current === undefined) await cluster.create(cm);
  else await cluster.update({ ...cm, metadata: { ...cm.metadata, resourceVersion: current.metadata.resourceVersion } });
}
