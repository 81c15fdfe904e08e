/**
 * The pods of deploy/'s workloads, as the deploy tests look at them: each
 * workload's pod template, its containers with their command lines, and
 * where a container's path lands on the host (through its hostPath volumes).
 */
import type { ManifestObject } from './manifests.ts';

export interface Mount {
  readonly name: string;
  readonly mountPath: string;
  readonly readOnly?: boolean;
  readonly mountPropagation?: string;
}

export interface Container {
  readonly name: string;
  readonly image: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value?: string }[];
  readonly volumeMounts?: readonly Mount[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly securityContext?: { readonly privileged?: boolean };
}

interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: number | string };
  readonly exec?: { readonly command: readonly string[] };
}

export interface PodSpec {
  readonly serviceAccountName?: string;
  readonly hostNetwork?: boolean;
  readonly initContainers?: readonly Container[];
  readonly containers: readonly Container[];
  readonly volumes?: readonly {
    readonly name: string;
    readonly hostPath?: { readonly path: string };
    readonly configMap?: { readonly name: string };
  }[];
}

export interface Workload {
  readonly file: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  readonly replicas?: number;
  readonly pod: PodSpec;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

/** The Deployments and DaemonSets of the manifests. */
export function workloads(manifests: readonly ManifestObject[]): Workload[] {
  return manifests
    .filter((m) => WORKLOAD_KINDS.has(m.object.kind))
    .map((m) => {
      const spec = m.object.spec as { replicas?: number; template: { spec: PodSpec } };
      return {
        file: m.file,
        kind: m.object.kind,
        name: m.object.metadata.name,
        namespace: m.object.metadata.namespace ?? 'default',
        ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
        pod: spec.template.spec,
      };
    });
}

export const allContainers = (p: PodSpec): readonly Container[] => [...(p.initContainers ?? []), ...p.containers];

/** The container's command line, command then args. */
export const commandLine = (c: Container): string[] => [...(c.command ?? []), ...(c.args ?? [])];

/**
 * A `--name=value` or `--name value` flag's value in a command line.
 *
 * @example flagValue(['daemon', '--node=$(NODE_NAME)'], 'node') // '$(NODE_NAME)'
 */
export function flagValue(line: readonly string[], name: string): string | undefined {
  for (const [i, a] of line.entries()) {
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    if (a === `--${name}`) return line[i + 1];
  }
  return undefined;
}

/**
 * The host path a container path lies on, through the container's hostPath
 * mounts (the longest mount path that holds it); undefined when it is in the
 * container's own filesystem.
 *
 * @example hostPathOf(pod, daemon, '/run/openvswitch/db.sock') // '/run/openvswitch/db.sock'
 */
export function hostPathOf(pod: PodSpec, c: Container, path: string): string | undefined {
  const mounts = (c.volumeMounts ?? [])
    .filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length);
  const m = mounts[0];
  const host = pod.volumes?.find((v) => v.name === m?.name)?.hostPath?.path;
  if (m === undefined || host === undefined) return undefined;
  return host + path.slice(m.mountPath.length);
}

/** The value a container's env sets (literal values only). */
export const envValue = (c: Container, name: string): string | undefined => c.env?.find((e) => e.name === name)?.value;
