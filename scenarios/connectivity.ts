/**
 * `kovn sim connectivity`: plain manifests (no Scenario document needed)
 * through the controller onto a backend, then every ordered pair of pods
 * probed on the given ports, or on the destination's declared container
 * ports (docs/architecture.md, "The `kovn` command"). The probes are the
 * scenario runner's (runScenario) with every pair as an expectation, so a
 * pair's verdict is the one `kovn sim run` would give for it.
 *
 * The pairs are planned first (scenarios/connectivity-plan.ts: which pods,
 * which ports, how many pairs, refused above `--max-pairs`), then streamed:
 * each is handed to `onPair` as it is answered and not kept, so memory does
 * not grow with their number. `runConnectivity` collects them, for small
 * inputs and tests.
 *
 * A port may be named (`TCP/http`): it is resolved per destination pod from
 * its containers' ports, as a NetworkPolicy's named port is; a destination
 * without that name is left out for that port (and said so). hostNetwork
 * pods are left out: they are on their node's network, which the node agent
 * wires (Kube-OVN gives them no logical port either).
 */
import { isPortName } from '../kube/objects/decode.ts';
import type { Warning } from '../kube/objects/warnings.ts';
import { type ControllerSettings, settingsFromScenario } from '../controller/config.ts';
import {
  type ConnectivityPlan,
  type PlanOptions,
  type PodFilter,
  type PortProtocol,
  type PortSpec,
  pairsOf,
  planConnectivity,
} from './connectivity-plan.ts';
import { type Expanded, expandObjects } from './expand.ts';
import type { LoadedScenario } from './load.ts';
import { type ProbeWorld, runScenario } from './run.ts';

export {
  ConnectivityError,
  type ConnectivityPlan,
  DEFAULT_MAX_PAIRS,
  type PodFilter,
  type PortProtocol,
  type PortSpec,
  parsePodFilter,
} from './connectivity-plan.ts';

export class PortSpecError extends Error {
  override readonly name = 'PortSpecError';
  readonly code = 'BadPortSpec';
}

/**
 * @example parsePorts('TCP/80,UDP/53,TCP/http')
 *   // [{ protocol: 'TCP', port: 80 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 'http' }]
 */
export function parsePorts(text: string): PortSpec[] {
  return text.split(',').map((raw) => {
    const entry = raw.trim();
    const m = /^(TCP|UDP|SCTP)\/(.+)$/i.exec(entry);
    if (!m)
      throw new PortSpecError(`--ports: ${JSON.stringify(entry)} is not PROTOCOL/PORT (e.g. TCP/80, UDP/53, TCP/http)`);
    const protocol = m[1]!.toUpperCase() as PortProtocol;
    const p = m[2]!;
    if (/^\d+$/.test(p)) {
      const n = Number(p);
      if (n < 1 || n > 65535) throw new PortSpecError(`--ports: ${entry}: a port is 1..65535`);
      return { protocol, port: n };
    }
    if (!isPortName(p))
      throw new PortSpecError(`--ports: ${entry}: ${JSON.stringify(p)} is neither a port number nor a port name`);
    return { protocol, port: p };
  });
}

export interface ConnectivityPair {
  readonly from: string;
  readonly to: string;
  readonly protocol: PortProtocol;
  readonly port: number;
  readonly allowed: boolean;
  /** Why not, in one line, when not allowed. */
  readonly reason?: string;
  /** Why the verdict may depend on something kovn did not act on. */
  readonly unsure?: string;
}

/** What a streamed run answered, in counts (the pairs went to `onPair`). */
export interface ConnectivitySummary {
  /** The pods pairs start or end at (document order). */
  readonly pods: readonly string[];
  readonly sources: readonly string[];
  readonly destinations: readonly string[];
  readonly total: number;
  readonly allowed: number;
  readonly denied: number;
  readonly unsure: number;
  /** Pods left out, and destinations a named port does not resolve on. */
  readonly notes: readonly string[];
  readonly warnings: readonly Warning[];
}

export interface ConnectivityResult extends ConnectivitySummary {
  readonly pairs: readonly ConnectivityPair[];
}

export interface ConnectivityOptions {
  readonly world: ProbeWorld;
  readonly ports?: readonly PortSpec[];
  /** Only pairs from these pods, to these pods (`--from`, `--to`). */
  readonly from?: PodFilter;
  readonly to?: PodFilter;
  /** `--max-pairs` (default DEFAULT_MAX_PAIRS): a run of more pairs is refused before it starts. */
  readonly maxPairs?: number;
  readonly settings?: ControllerSettings;
  readonly seed?: number;
  readonly onProgress?: (what: string, count?: { readonly done: number; readonly total: number }) => void;
}

/**
 * The pairs an input's pods make, counted; throws ConnectivityError
 * TooManyPairs above `maxPairs`, before anything runs.
 *
 * @example const plan = await connectivityPlan(loadManifests(['cluster.json']), { maxPairs: 1_000_000 });
 */
export async function connectivityPlan(
  s: LoadedScenario,
  opts: PlanOptions & { readonly settings?: ControllerSettings },
): Promise<ConnectivityPlan & { readonly expanded: Expanded }> {
  const settings = opts.settings ?? settingsFromScenario(s.cluster);
  const expanded = await expandObjects(
    s.objects.map((o) => o.object),
    {
      ...(s.cluster.nodes !== undefined ? { nodes: s.cluster.nodes } : {}),
      serviceCIDR: settings.serviceClusterIPRange,
    },
  );
  return { ...planConnectivity(expanded.objects, opts), expanded };
}

/**
 * Answers every pair of `plan`, each handed to `onPair` as it comes (awaited:
 * a writer may wait for its output to drain) and not kept.
 *
 * @example
 * const plan = await connectivityPlan(s, {});
 * const sum = await streamConnectivity(s, plan, { world, onPair: (p) => out.write(JSON.stringify(p)) });
 */
export async function streamConnectivity(
  s: LoadedScenario,
  plan: ConnectivityPlan & { readonly expanded?: Expanded },
  opts: ConnectivityOptions & { readonly onPair: (p: ConnectivityPair) => void | Promise<void> },
): Promise<ConnectivitySummary> {
  const settings = opts.settings ?? settingsFromScenario(s.cluster);
  opts.onProgress?.(`${plan.pods.length} pods, ${plan.total} pairs`);
  let allowed = 0;
  let unsure = 0;
  const run = await runScenario(
    { ...s, expect: [], steps: [] },
    {
      world: opts.world,
      settings,
      unresolvable: 'deny',
      // The objects the plan was made on: expanded once.
      ...(plan.expanded ? { expanded: plan.expanded } : {}),
      probes: { each: pairsOf(plan), total: plan.total },
      onResult: (r) => {
        if (r.allowed) allowed++;
        if (r.unsure !== undefined) unsure++;
        return opts.onPair({
          from: r.from,
          to: r.to,
          protocol: r.protocol as PortProtocol,
          port: r.port!,
          allowed: r.allowed,
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.unsure ? { unsure: r.unsure } : {}),
        });
      },
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
  );
  const { pods, sources, destinations, total, notes } = plan;
  return {
    pods,
    sources,
    destinations,
    total,
    allowed,
    denied: total - allowed,
    unsure,
    notes,
    warnings: run.warnings,
  };
}

/**
 * Plans, answers and collects every pair (for inputs small enough to hold them).
 *
 * @example const r = await runConnectivity(loadManifests(['app.yaml']), { world: new SimWorld() });
 *   r.pairs.filter((p) => !p.allowed)
 */
export async function runConnectivity(s: LoadedScenario, opts: ConnectivityOptions): Promise<ConnectivityResult> {
  const plan = await connectivityPlan(s, opts);
  const pairs: ConnectivityPair[] = [];
  const sum = await streamConnectivity(s, plan, { ...opts, onPair: (p) => void pairs.push(p) });
  return { ...sum, pairs };
}
