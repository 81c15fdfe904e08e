/**
 * The workloads' columns as a 1.20 API server prints them: Deployment,
 * ReplicaSet, StatefulSet, DaemonSet, Job (wide adds CONTAINERS, IMAGES
 * and SELECTOR).
 */
import { humanDuration } from './age.ts';
import {
  AGE,
  age,
  col,
  containersOf,
  formatLabels,
  formatSelector,
  int,
  NAME,
  obj,
  type Printer,
} from './printer-kit.ts';

const WIDE = [
  col('Containers', 'string', 1, 'Names of each container in the template.'),
  col('Images', 'string', 1, 'Images referenced by each container in the template.'),
  col('Selector', 'string', 1, 'Label selector for pods.'),
];
const replicas = (spec: Record<string, unknown>): number => (typeof spec.replicas === 'number' ? spec.replicas : 1);

const DEPLOYMENT: Printer = {
  columns: [
    NAME,
    col('Ready', 'string', 0, 'Number of the pod with ready state'),
    col(
      'Up-to-date',
      'string',
      0,
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    col(
      'Available',
      'string',
      0,
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AGE,
    ...WIDE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return [
      o.metadata.name,
      `${int(status.readyReplicas)}/${replicas(spec)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      age(o, now),
      ...containersOf(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

const REPLICA_SET: Printer = {
  columns: [
    NAME,
    col('Desired', 'integer', 0, 'Number of desired pods.'),
    col('Current', 'integer', 0, 'Number of actual replicas.'),
    col('Ready', 'integer', 0, 'The number of ready replicas for this replica set.'),
    AGE,
    ...WIDE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    return [
      o.metadata.name,
      replicas(spec),
      int(status.replicas),
      int(status.readyReplicas),
      age(o, now),
      ...containersOf(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

const STATEFUL_SET: Printer = {
  columns: [NAME, col('Ready', 'string', 0, 'Number of the pod with ready state'), AGE, ...WIDE.slice(0, 2)],
  cells(o, now) {
    const spec = obj(o.spec);
    return [
      o.metadata.name,
      `${int(obj(o.status).readyReplicas)}/${replicas(spec)}`,
      age(o, now),
      ...containersOf(spec.template),
    ];
  },
};

const DAEMON_SET: Printer = {
  columns: [
    NAME,
    col('Desired', 'integer', 0, 'The total number of nodes that should be running the daemon pod.'),
    col('Current', 'integer', 0, 'The number of nodes that are running at least 1 daemon pod.'),
    col(
      'Ready',
      'integer',
      0,
      'The number of nodes that should be running the daemon pod and have one or more running and ready.',
    ),
    col('Up-to-date', 'integer', 0, 'The total number of nodes that are running updated daemon pod'),
    col(
      'Available',
      'integer',
      0,
      'The number of nodes that should be running the daemon pod and have one or more available.',
    ),
    col('Node Selector', 'string', 0, 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE,
    ...WIDE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const s = obj(o.status);
    return [
      o.metadata.name,
      int(s.desiredNumberScheduled),
      int(s.currentNumberScheduled),
      int(s.numberReady),
      int(s.updatedNumberScheduled),
      int(s.numberAvailable),
      formatLabels(obj(obj(spec.template).spec).nodeSelector),
      age(o, now),
      ...containersOf(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

function jobDuration(status: Record<string, unknown>, now: (() => number) | undefined): string {
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : Number.NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now?.();
  return end === undefined || Number.isNaN(end) ? '' : humanDuration(end - start);
}

const JOB: Printer = {
  columns: [
    NAME,
    col('Completions', 'string', 0, 'The desired number of successfully finished pods the job should be run with.'),
    col('Duration', 'string', 0, 'Time required to complete the job.'),
    AGE,
    ...WIDE,
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const done = int(status.succeeded);
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    const completions =
      typeof spec.completions === 'number'
        ? `${done}/${spec.completions}`
        : parallelism > 1
          ? `${done}/1 of ${parallelism}`
          : `${done}/1`;
    return [
      o.metadata.name,
      completions,
      jobDuration(status, now),
      age(o, now),
      ...containersOf(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

/** The workload kinds' printers. */
export const WORKLOAD_PRINTERS: Readonly<Record<string, Printer>> = {
  Deployment: DEPLOYMENT,
  ReplicaSet: REPLICA_SET,
  StatefulSet: STATEFUL_SET,
  DaemonSet: DAEMON_SET,
  Job: JOB,
};
