/**
 * What `kovn sim connectivity` will probe, decided before anything runs: the
 * source and destination pods (all of them, or those `--from`/`--to` name),
 * the ports each destination is probed on, and how many pairs that makes.
 * The pairs themselves are never a list: `pairsOf` yields them one at a time,
 * so memory does not grow with their number (20,000 pods with one port each
 * are 399,980,000 pairs). Above a limit of pairs (`--max-pairs`, default
 * DEFAULT_MAX_PAIRS) the run is refused before the controller starts, with
 * the number and how to narrow it (docs/architecture.md, "The `kovn` command").
 */
import type { KubeObject } from '../kube/cluster/types.ts';
import { type ContainerPort, decodePod, type L4Protocol, type PodView } from '../kube/objects/objects.ts';
import type { ScenarioProbe } from './load.ts';

export type PortProtocol = L4Protocol;

/** One `--ports` entry: a number, or a container port's name resolved per destination. */
export interface PortSpec {
  readonly protocol: PortProtocol;
  readonly port: number | string;
}

/**
 * The default `--max-pairs`: about four minutes on the simulator (40,000 to
 * 55,000 pairs a second measured on 2,000 and 20,000 pods) and about a
 * gigabyte of JSON (97 bytes a pair); docs/architecture.md, "The `kovn` command".
 */
export const DEFAULT_MAX_PAIRS = 10_000_000;

type FilterCode = 'BadPodFilter' | 'TooManyPairs';

/** A `--from`/`--to` that cannot be read, or more pairs than `--max-pairs` allows. */
export class ConnectivityError extends Error {
  override readonly name = 'ConnectivityError';
  constructor(
    readonly code: FilterCode,
    message: string,
    /** TooManyPairs: how many pairs the run would probe, and the limit. */
    readonly pairs?: { readonly count: number; readonly limit: number },
  ) {
    super(message);
  }
}

/**
 * `--from`/`--to`: comma-separated terms. `NAMESPACE` or `NAMESPACE/POD`
 * name pods (a pod matches any of them; none given: every pod), and
 * `KEY=VALUE` / `KEY!=VALUE` narrow them to pods whose labels say so (all
 * of them must hold).
 */
export interface PodFilter {
  readonly namespaces: readonly string[];
  readonly pods: readonly string[];
  readonly labels: readonly { readonly key: string; readonly value: string; readonly equal: boolean }[];
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/**
 * @example parsePodFilter('--from', 'prod,staging/web-0,app=web')
 *   // { namespaces: ['prod'], pods: ['staging/web-0'], labels: [{ key: 'app', value: 'web', equal: true }] }
 */
export function parsePodFilter(flag: string, text: string): PodFilter {
  const out = { namespaces: [] as string[], pods: [] as string[], labels: [] as PodFilter['labels'][number][] };
  const bad = (term: string, why: string) =>
    new ConnectivityError('BadPodFilter', `${flag}: ${JSON.stringify(term)} ${why}`);
  for (const raw of text.split(',')) {
    const term = raw.trim();
    const label = /^([^=!]*)(!?=)(.*)$/.exec(term);
    if (label) {
      const [, key = '', op, value = ''] = label;
      if (!LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) throw bad(term, 'is not a label KEY=VALUE or KEY!=VALUE');
      out.labels.push({ key, value, equal: op === '=' });
      continue;
    }
    const parts = term.split('/');
    if (parts.length > 2 || !parts.every((p) => NAME.test(p)))
      throw bad(term, 'is neither a namespace, NAMESPACE/POD nor a label KEY=VALUE');
    if (parts.length === 2) out.pods.push(term);
    else out.namespaces.push(term);
  }
  return out;
}

/** A pod the run may probe from or to. */
interface PlannedPod {
  readonly key: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly ports: readonly { readonly protocol: PortProtocol; readonly port: number }[];
}

const matches = (f: PodFilter | undefined, p: PlannedPod): boolean => {
  if (f === undefined) return true;
  const named = f.namespaces.length > 0 || f.pods.length > 0;
  if (named && !f.namespaces.includes(p.namespace) && !f.pods.includes(p.key)) return false;
  return f.labels.every((l) => (p.labels[l.key] === l.value) === l.equal);
};

/** Every pair's probe, the order it is answered and printed in: by source, then destination, then port. */
export interface ConnectivityPlan {
  /** The pods pairs start or end at (document order). */
  readonly pods: readonly string[];
  readonly sources: readonly string[];
  readonly destinations: readonly string[];
  /** How many pairs `pairsOf` yields. */
  readonly total: number;
  /** Pods left out, and destinations a named port does not resolve on. */
  readonly notes: readonly string[];
  readonly from: readonly PlannedPod[];
  readonly to: readonly PlannedPod[];
}

export interface PlanOptions {
  readonly ports?: readonly PortSpec[];
  readonly from?: PodFilter;
  readonly to?: PodFilter;
  /** Refuse a plan of more pairs (ConnectivityError TooManyPairs); default DEFAULT_MAX_PAIRS. */
  readonly maxPairs?: number;
}

/**
 * The plan over the pods of an expanded input; throws ConnectivityError
 * TooManyPairs when it has more pairs than `maxPairs`.
 *
 * @example const plan = planConnectivity(expanded.objects, { from: parsePodFilter('--from', 'prod') });
 *   plan.total // sources × their destinations' ports
 */
export function planConnectivity(objects: readonly KubeObject[], opts: PlanOptions): ConnectivityPlan {
  const notes: string[] = [];
  const kept: { key: string; namespace: string; pod: PodView }[] = [];
  for (const o of objects) {
    if (o.kind !== 'Pod') continue;
    // Read as the controller reads it (ports, hostNetwork, phase, labels).
    const pod = decodePod(o).value;
    const namespace = pod.namespace || 'default';
    const key = `${namespace}/${pod.name}`;
    if (pod.hostNetwork) {
      notes.push(`${key} uses the host network: left out (its node's network, not the overlay)`);
      continue;
    }
    if (pod.phase === 'Succeeded' || pod.phase === 'Failed') {
      notes.push(`${key} has finished: left out (its address is released)`);
      continue;
    }
    kept.push({ key, namespace, pod });
  }
  const pods: PlannedPod[] = kept.map(({ key, namespace, pod }) => ({
    key,
    namespace,
    labels: pod.labels,
    ports: portsFor(pod.ports, opts.ports, notes, key),
  }));
  for (const p of pods)
    if (p.ports.length === 0 && opts.ports === undefined)
      notes.push(`${p.key} declares no container port: nothing is probed towards it (give --ports)`);
  const from = pods.filter((p) => matches(opts.from, p));
  const to = pods.filter((p) => matches(opts.to, p));
  // Each source probes every destination but itself, on each of its ports.
  const sourceKeys = new Set(from.map((p) => p.key));
  const perSource = to.reduce((n, p) => n + p.ports.length, 0);
  const self = to.reduce((n, p) => n + (sourceKeys.has(p.key) ? p.ports.length : 0), 0);
  const total = from.length * perSource - self;
  const limit = opts.maxPairs ?? DEFAULT_MAX_PAIRS;
  if (total > limit) throw tooMany(total, limit, from.length, to.length);
  const keys = (list: readonly PlannedPod[]) => list.map((p) => p.key);
  const destinationKeys = new Set(to.map((p) => p.key));
  const probed = pods.filter((p) => sourceKeys.has(p.key) || destinationKeys.has(p.key));
  return { pods: keys(probed), sources: keys(from), destinations: keys(to), total, notes, from, to };
}

const count = (n: number) => n.toLocaleString('en-US');

function tooMany(total: number, limit: number, sources: number, destinations: number): ConnectivityError {
  return new ConnectivityError(
    'TooManyPairs',
    `${count(total)} pairs (${count(sources)} source pods, ${count(destinations)} destination pods, on each destination's ports) ` +
      `are more than --max-pairs ${count(limit)}: narrow them with --from/--to (a namespace, NAMESPACE/POD or a label ` +
      'KEY=VALUE, comma-separated) or --ports, or raise --max-pairs (memory does not grow with it; time and output do)',
    { count: total, limit },
  );
}

/**
 * The plan's probes, one at a time (never held as a list).
 *
 * @example for (const probe of pairsOf(plan)) await answer(probe);
 */
export function* pairsOf(plan: ConnectivityPlan): Generator<ScenarioProbe> {
  for (const from of plan.from)
    for (const to of plan.to) {
      if (from.key === to.key) continue;
      for (const p of to.ports) yield { from: from.key, to: to.key, protocol: p.protocol, port: p.port, allowed: true };
    }
}

/** The (protocol, port) list a destination is probed on. */
function portsFor(
  declared: readonly ContainerPort[],
  specs: readonly PortSpec[] | undefined,
  notes: string[],
  key: string,
) {
  if (specs === undefined) {
    const seen = new Set<string>();
    return declared
      .filter((p) => {
        const k = `${p.protocol}/${p.containerPort}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      })
      .map((p) => ({ protocol: p.protocol, port: p.containerPort }));
  }
  const out: { protocol: PortProtocol; port: number }[] = [];
  for (const s of specs) {
    if (typeof s.port === 'number') {
      out.push({ protocol: s.protocol, port: s.port });
      continue;
    }
    const hit = declared.find((p) => p.name === s.port && p.protocol === s.protocol);
    if (hit) out.push({ protocol: s.protocol, port: hit.containerPort });
    else notes.push(`${key} has no ${s.protocol} container port named ${s.port}: not probed on it`);
  }
  return out;
}
