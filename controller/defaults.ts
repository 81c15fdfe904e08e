/**
 * Kube-OVN's default objects: the cluster router's VPC, the default subnet
 * and the join subnet, as the controller creates them when missing
 * (pkg/controller/init.go), from the settings.
 */
import type { ClusterSource, KubeObject } from '../kube/cluster/types.ts';
import { type Informer, InformerStoppedError } from '../kube/runtime/informer.ts';
import type { ControllerSettings } from './config.ts';
import type { Kind } from './handlers/context.ts';

/**
 * @example defaultObjects(DEFAULT_SETTINGS).map((o) => o.metadata.name) // ['ovn-cluster', 'ovn-default', 'join']
 */
export function defaultObjects(s: ControllerSettings): KubeObject[] {
  return [
    { apiVersion: 'kubeovn.io/v1', kind: 'Vpc', metadata: { name: s.clusterRouter }, spec: {} },
    {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: s.defaultLogicalSwitch },
      spec: {
        default: true,
        vpc: s.clusterRouter,
        protocol: protocolOf(s.defaultCIDR),
        cidrBlock: s.defaultCIDR,
        ...(s.defaultGateway ? { gateway: s.defaultGateway } : {}),
        ...(s.defaultExcludeIps ? { excludeIps: s.defaultExcludeIps.split(',') } : {}),
        gatewayType: 'distributed',
        natOutgoing: true,
      },
    },
    {
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: s.nodeSwitch },
      spec: {
        vpc: s.clusterRouter,
        protocol: protocolOf(s.nodeSwitchCIDR),
        cidrBlock: s.nodeSwitchCIDR,
        ...(s.nodeSwitchGateway ? { gateway: s.nodeSwitchGateway } : {}),
        gatewayType: 'distributed',
      },
    },
  ];
}

/**
 * Creates the default objects the caches do not hold, and waits until each
 * is in its informer's cache (however long the source takes to deliver it).
 *
 * @example await ensureDefaults(cluster, settings, (kind) => informers.get(kind)!);
 */
export async function ensureDefaults(
  cluster: ClusterSource,
  settings: ControllerSettings,
  informer: (kind: Kind) => Informer,
): Promise<void> {
  for (const o of defaultObjects(settings)) {
    const inf = informer(o.kind as Kind);
    if (inf.get(o.metadata.name) !== undefined) continue;
    await cluster.create(o).catch((e: unknown) => {
      if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
    });
    if ((await inf.waitFor(o.metadata.name)) === undefined) throw new InformerStoppedError(o.kind);
  }
}

function protocolOf(cidrs: string): string {
  const parts = cidrs.split(',');
  const v6 = parts.some((c) => c.includes(':'));
  const v4 = parts.some((c) => !c.includes(':'));
  return v4 && v6 ? 'Dual' : v6 ? 'IPv6' : 'IPv4';
}
