/**
 * The columns `kubectl get` shows for the built-in kinds that have their own
 * printer in a 1.20 API server (pkg/printers/internalversion): Pod, Node,
 * Namespace, Service; the workloads' (printers-workloads.ts) and the
 * others' kovn serves (printers-config.ts). A kind without one gets NAME
 * and AGE (GENERIC).
 * Cells are computed from the object as the server computes them, `<none>`
 * where it writes `<none>`.
 */
import type { KubeObject } from '../../cluster/types.ts';
import { ageOf } from './age.ts';
import { CONFIG_PRINTERS } from './printers-config.ts';
import { WORKLOAD_PRINTERS } from './printers-workloads.ts';
import { AGE, arr, col, NAME, type Obj, obj, orNone, type Printer, text } from './printer-kit.ts';

function podStatus(o: KubeObject): string {
  const status = obj(o.status);
  let reason = text(status.reason) || text(status.phase);
  for (const c of [...arr(status.containerStatuses)].reverse()) {
    const state = obj(obj(c).state);
    const waiting = text(obj(state.waiting).reason);
    const terminated = obj(state.terminated);
    if (waiting !== '') reason = waiting;
    else if (text(terminated.reason) !== '') reason = text(terminated.reason);
    else if (state.terminated !== undefined) reason = `ExitCode:${Number(terminated.exitCode ?? 0)}`;
  }
  if (o.metadata.deletionTimestamp !== undefined) return text(status.reason) === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

const POD: Printer = {
  columns: [
    NAME,
    col('Ready', 'string', 0, 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 0, 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'integer', 0, 'The number of times the containers in this pod have been restarted.'),
    AGE,
    col('IP', 'string', 1, 'IP address allocated to the pod.'),
    col('Node', 'string', 1, 'Name of the node this pod is running on.'),
    col('Nominated Node', 'string', 1, 'Name of the node this pod is nominated to run on.'),
    col('Readiness Gates', 'string', 1, 'The readiness gates of this pod.'),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const containers = arr(status.containerStatuses).map(obj);
    const ready = containers.filter((c) => c.ready === true).length;
    const restarts = containers.reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0);
    const ip = text(obj(arr(status.podIPs)[0]).ip) || text(status.podIP);
    const gates = arr(spec.readinessGates);
    const conditions = arr(status.conditions).map(obj);
    const gatesTrue = gates.filter((g) =>
      conditions.some((c) => c.type === obj(g).conditionType && c.status === 'True'),
    ).length;
    return [
      o.metadata.name,
      `${ready}/${arr(spec.containers).length}`,
      podStatus(o),
      restarts,
      ageOf(o.metadata.creationTimestamp, now),
      orNone(ip),
      orNone(text(spec.nodeName)),
      orNone(text(status.nominatedNodeName)),
      gates.length > 0 ? `${gatesTrue}/${gates.length}` : '<none>',
    ];
  },
};

function nodeAddress(o: KubeObject, type: string): string {
  const a = arr(obj(o.status).addresses)
    .map(obj)
    .find((x) => x.type === type);
  return orNone(text(a?.address));
}

const NODE: Printer = {
  columns: [
    NAME,
    col('Status', 'string', 0, 'The status of the node'),
    col('Roles', 'string', 0, 'The roles of the node'),
    AGE,
    col('Version', 'string', 0, 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', 1, 'List of internal IPs.'),
    col('External-IP', 'string', 1, 'List of external IPs.'),
    col('OS-Image', 'string', 1, 'OS Image reported by the node from /etc/os-release.'),
    col('Kernel-Version', 'string', 1, 'Kernel Version reported by the node.'),
    col('Container-Runtime', 'string', 1, 'Container Runtime Version reported by the node.'),
  ],
  cells(o, now) {
    const ready = arr(obj(o.status).conditions)
      .map(obj)
      .find((c) => c.type === 'Ready');
    const states = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
    if (obj(o.spec).unschedulable === true) states.push('SchedulingDisabled');
    const labels = o.metadata.labels ?? {};
    const roles = Object.keys(labels)
      .flatMap((k) => (k.startsWith('node-role.kubernetes.io/') ? [k.slice(24)] : []))
      .concat(labels['kubernetes.io/role'] ? [labels['kubernetes.io/role']] : [])
      .filter((r) => r !== '')
      .sort();
    const info = obj(obj(o.status).nodeInfo);
    return [
      o.metadata.name,
      states.join(','),
      orNone(roles.join(',')),
      ageOf(o.metadata.creationTimestamp, now),
      text(info.kubeletVersion),
      nodeAddress(o, 'InternalIP'),
      nodeAddress(o, 'ExternalIP'),
      orNone(text(info.osImage)),
      orNone(text(info.kernelVersion)),
      orNone(text(info.containerRuntimeVersion)),
    ];
  },
};

const NAMESPACE: Printer = {
  columns: [NAME, col('Status', 'string', 0, 'The status of the namespace'), AGE],
  cells: (o, now) => [o.metadata.name, text(obj(o.status).phase) || 'Active', ageOf(o.metadata.creationTimestamp, now)],
};

function serviceExternal(spec: Obj, status: Obj): string {
  const external = arr(spec.externalIPs).map(text);
  switch (text(spec.type) || 'ClusterIP') {
    case 'LoadBalancer': {
      const ingress = arr(obj(status.loadBalancer).ingress)
        .map((i) => text(obj(i).ip) || text(obj(i).hostname))
        .concat(external);
      return ingress.length > 0 ? ingress.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(spec.externalName);
    default:
      return external.length > 0 ? external.join(',') : '<none>';
  }
}

const SERVICE: Printer = {
  columns: [
    NAME,
    col('Type', 'string', 0, 'The type of the service'),
    col('Cluster-IP', 'string', 0, 'The cluster IP of the service'),
    col('External-IP', 'string', 0, 'The external IP of the service'),
    col('Port(s)', 'string', 0, 'The ports of the service'),
    AGE,
    col('Selector', 'string', 1, 'The label selector of the service'),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const ports = arr(spec.ports)
      .map(obj)
      .map((p) => {
        const proto = text(p.protocol) || 'TCP';
        return p.nodePort !== undefined ? `${p.port}:${p.nodePort}/${proto}` : `${p.port}/${proto}`;
      });
    const selector = Object.entries(obj(spec.selector))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${text(v)}`);
    return [
      o.metadata.name,
      text(spec.type) || 'ClusterIP',
      orNone(text(spec.clusterIP)),
      serviceExternal(spec, obj(o.status)),
      orNone(ports.join(',')),
      ageOf(o.metadata.creationTimestamp, now),
      orNone(selector.join(',')),
    ];
  },
};

/**
 * The printers of the built-in kinds that have one.
 *
 * @example BUILTIN_PRINTERS.Pod?.columns.map((c) => c.name) // ['Name', 'Ready', 'Status', ...]
 */
export const BUILTIN_PRINTERS: Readonly<Record<string, Printer>> = {
  Pod: POD,
  Node: NODE,
  Namespace: NAMESPACE,
  Service: SERVICE,
  ...WORKLOAD_PRINTERS,
  ...CONFIG_PRINTERS,
};
