/**
 * The Kubernetes and kubeovn.io/v1 objects the controller reads, as typed
 * views holding only the fields it uses, each decoded with the issues found
 * (see decode.ts) and checked against its kind's support table (support/).
 * This file holds the core kinds and re-exports the others (meta.ts,
 * network-policy.ts, kubeovn.ts).
 */
import type { KubeObject } from '../cluster/types.ts';
import { type Plain, Reader } from './decode.ts';
import { type Decoded, type Meta, meta, objName, protocol, type L4Protocol } from './meta.ts';
import {
  ENDPOINT_SLICE_SUPPORT,
  NAMESPACE_SUPPORT,
  NODE_SUPPORT,
  POD_SUPPORT,
  SERVICE_SUPPORT,
} from './support/index.ts';

export * from './admin-network-policy.ts';
export * from './kubeovn.ts';
export * from './meta.ts';
export * from './network-policy.ts';
export * from './qos-policy.ts';
export * from './security-group.ts';
export * from './vpc-nat-gateway.ts';
export * from './services.ts';
export * from './underlay.ts';
export * from './attachment.ts';

export interface ContainerPort {
  readonly name?: string;
  readonly containerPort: number;
  readonly protocol: L4Protocol;
}

export interface PodView extends Meta {
  readonly nodeName: string;
  readonly hostNetwork: boolean;
  /** Pending, Running, Succeeded, Failed, Unknown ('' when absent). */
  readonly phase: string;
  readonly ports: readonly ContainerPort[];
  readonly ready: boolean;
  /** The pod's addresses the kubelet reported (status.podIPs), informational. */
  readonly podIPs: readonly string[];
}

export function decodePod(o: KubeObject): Decoded<PodView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const status = r.obj(o, 'status', '');
  const ports: ContainerPort[] = [];
  for (const c of r.objs(spec, 'containers', 'spec')) {
    for (const p of r.objs(c.value, 'ports', c.at)) {
      const containerPort = r.port(p.value, 'containerPort', p.at);
      if (containerPort === undefined) {
        if (p.value.containerPort == null)
          r.issue('missing-field', `${p.at}.containerPort`, `${p.at}.containerPort is required`);
        continue;
      }
      const name = r.str(p.value, 'name', p.at);
      ports.push({ containerPort, protocol: protocol(r, p.value, p.at), ...(name ? { name } : {}) });
    }
  }
  const conditions = r.objs(status, 'conditions', 'status');
  const readyCond = conditions.find((c) => c.value.type === 'Ready');
  const value: PodView = {
    ...meta(o, r),
    nodeName: r.str(spec, 'nodeName', 'spec') ?? '',
    hostNetwork: r.bool(spec, 'hostNetwork', 'spec') ?? false,
    phase: r.str(status, 'phase', 'status') ?? '',
    ports,
    // A pod without a Ready condition counts as ready: scenarios describe running pods.
    ready: readyCond === undefined || readyCond.value.status === 'True',
    podIPs: r.objs(status, 'podIPs', 'status').flatMap((p) => r.str(p.value, 'ip', p.at) ?? []),
  };
  r.support(o as unknown as Plain, POD_SUPPORT);
  return { value, issues: r.issues };
}

export type NamespaceView = Meta;

export function decodeNamespace(o: KubeObject): Decoded<NamespaceView> {
  const r = new Reader(objName(o));
  const m = meta(o, r);
  r.support(o as unknown as Plain, NAMESPACE_SUPPORT);
  // Every namespace carries its name as a label (the NamespaceDefaultLabelName feature, GA since 1.22).
  return { value: { ...m, labels: { ...m.labels, 'kubernetes.io/metadata.name': m.name } }, issues: r.issues };
}

export interface NodeView extends Meta {
  readonly internalIPs: readonly string[];
  /**
   * Kube-OVN's nodeReady (pkg/controller/node.go): Ready True and not
   * NetworkUnavailable. A node without a Ready condition counts as ready:
   * scenarios describe running nodes (a kubelet posts Ready at once).
   */
  readonly ready: boolean;
}

export function decodeNode(o: KubeObject): Decoded<NodeView> {
  const r = new Reader(objName(o));
  const status = r.obj(o, 'status', '');
  const internalIPs = r
    .objs(status, 'addresses', 'status')
    .filter((a) => a.value.type === 'InternalIP')
    .flatMap((a) => r.str(a.value, 'address', a.at) ?? []);
  const conditions = r.objs(status, 'conditions', 'status');
  const cond = (type: string) => conditions.find((c) => c.value.type === type)?.value.status;
  const readyCond = cond('Ready');
  const ready = (readyCond === undefined || readyCond === 'True') && cond('NetworkUnavailable') !== 'True';
  const value = { ...meta(o, r), internalIPs, ready };
  r.support(o as unknown as Plain, NODE_SUPPORT);
  return { value, issues: r.issues };
}

export interface ServicePort {
  readonly name?: string;
  readonly protocol: L4Protocol;
  readonly port: number;
  readonly targetPort?: number | string;
}

export interface ServiceView extends Meta {
  readonly type: string;
  readonly clusterIPs: readonly string[];
  readonly externalIPs: readonly string[];
  readonly selector?: Readonly<Record<string, string>>;
  readonly ports: readonly ServicePort[];
  readonly sessionAffinity: 'ClientIP' | 'None';
}

export function decodeService(o: KubeObject): Decoded<ServiceView> {
  const r = new Reader(objName(o));
  const spec = r.obj(o, 'spec', '');
  const ports: ServicePort[] = [];
  for (const p of r.objs(spec, 'ports', 'spec')) {
    const port = r.port(p.value, 'port', p.at);
    if (port === undefined) {
      if (p.value.port == null) r.issue('missing-field', `${p.at}.port`, `${p.at}.port is required`);
      continue;
    }
    const name = r.str(p.value, 'name', p.at);
    const targetPort = r.portOrName(p.value, 'targetPort', p.at);
    ports.push({
      port,
      protocol: protocol(r, p.value, p.at),
      ...(name ? { name } : {}),
      ...(targetPort !== undefined ? { targetPort } : {}),
    });
  }
  const clusterIP = r.str(spec, 'clusterIP', 'spec');
  const clusterIPs = r.strs(spec, 'clusterIPs', 'spec') ?? (clusterIP ? [clusterIP] : []);
  const selector = spec?.selector === undefined ? undefined : r.strMap(spec, 'selector', 'spec');
  const affinity = r.str(spec, 'sessionAffinity', 'spec');
  r.support(o as unknown as Plain, SERVICE_SUPPORT);
  return {
    value: {
      ...meta(o, r),
      type: r.str(spec, 'type', 'spec') ?? 'ClusterIP',
      clusterIPs: clusterIPs.filter((ip) => ip !== '' && ip !== 'None'),
      externalIPs: r.strs(spec, 'externalIPs', 'spec') ?? [],
      ...(selector !== undefined ? { selector } : {}),
      ports,
      sessionAffinity: affinity === 'ClientIP' ? 'ClientIP' : 'None',
    },
    issues: r.issues,
  };
}

export interface EndpointSliceView extends Meta {
  /** `kubernetes.io/service-name`. */
  readonly service: string;
  readonly addressType: string;
  readonly ports: readonly { readonly name?: string; readonly port?: number; readonly protocol: L4Protocol }[];
  readonly endpoints: readonly {
    readonly addresses: readonly string[];
    readonly ready: boolean;
    readonly targetPod?: string;
  }[];
}

export function decodeEndpointSlice(o: KubeObject): Decoded<EndpointSliceView> {
  const r = new Reader(objName(o));
  const m = meta(o, r);
  const top = o as unknown as Plain;
  r.support(top, ENDPOINT_SLICE_SUPPORT);
  const ports = r.objs(top, 'ports', '').map((p) => {
    const name = r.str(p.value, 'name', p.at);
    const port = r.port(p.value, 'port', p.at);
    return { protocol: protocol(r, p.value, p.at), ...(name ? { name } : {}), ...(port !== undefined ? { port } : {}) };
  });
  const endpoints = r.objs(top, 'endpoints', '').map((e) => {
    const conditions = r.obj(e.value, 'conditions', e.at);
    const ref = r.obj(e.value, 'targetRef', e.at);
    const target = ref?.kind === 'Pod' ? r.str(ref, 'name', `${e.at}.targetRef`) : undefined;
    return {
      addresses: r.strs(e.value, 'addresses', e.at) ?? [],
      ready: r.bool(conditions, 'ready', `${e.at}.conditions`) ?? true,
      ...(target ? { targetPod: target } : {}),
    };
  });
  return {
    value: {
      ...m,
      service: m.labels['kubernetes.io/service-name'] ?? '',
      addressType: r.str(top, 'addressType', '') ?? 'IPv4',
      ports,
      endpoints,
    },
    issues: r.issues,
  };
}
