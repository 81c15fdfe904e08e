/**
 * `kovn sim connectivity`: plain manifests (no Scenario document needed)
 * through the controller onto a backend, then every ordered pair of pods
 * probed on the given ports, or on the destination's declared container
 * ports (docs/architecture.md, "The `kovn` command"). The probes are the
 * scenario runner's (runScenario) with every pair as an expectation, so a
 * pair's verdict is the one `kovn sim run` would give for it.
 *
 * A port may be named (`TCP/http`): it is resolved per destination pod from
 * its containers' ports, as a NetworkPolicy's named port is; a destination
 * without that name is left out for that port (and said so). hostNetwork
 * pods are left out: they are on their node's network, which the node agent
 * wires (Kube-OVN gives them no logical port either).
 */
import type { KubeObject } from '../controller/cluster/types.ts';
import type { Warning } from '../controller/kube/warnings.ts';
import { type ControllerSettings, settingsFromScenario } from '../controller/config.ts';
import { expandObjects } from './expand.ts';
import type { LoadedScenario, ScenarioProbe } from './load.ts';
import { type ProbeWorld, runScenario } from './run.ts';

export type PortProtocol = 'TCP' | 'UDP' | 'SCTP';

/** One `--ports` entry: a number, or a container port's name resolved per destination. */
export interface PortSpec {
  readonly protocol: PortProtocol;
  readonly port: number | string;
}

export class PortSpecError extends Error {
  override readonly name = 'PortSpecError';
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
    // A Kubernetes port name (IANA_SVC_NAME): up to 15 lower-case letters, digits and '-', with a letter.
    if (!/^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/.test(p) || !/[a-z]/.test(p))
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

export interface ConnectivityResult {
  readonly pods: readonly string[];
  readonly pairs: readonly ConnectivityPair[];
  /** Pods left out, and destinations a named port does not resolve on. */
  readonly notes: readonly string[];
  readonly warnings: readonly Warning[];
}

export interface ConnectivityOptions {
  readonly world: ProbeWorld;
  readonly ports?: readonly PortSpec[];
  readonly settings?: ControllerSettings;
  readonly seed?: number;
  readonly onProgress?: (what: string) => void;
}

interface ContainerPort {
  readonly name?: string;
  readonly containerPort: number;
  readonly protocol: PortProtocol;
}

function containerPorts(pod: KubeObject): ContainerPort[] {
  const spec = (pod.spec ?? {}) as { containers?: { ports?: Record<string, unknown>[] }[] };
  const out: ContainerPort[] = [];
  for (const c of spec.containers ?? [])
    for (const p of c.ports ?? []) {
      if (typeof p.containerPort !== 'number') continue;
      const protocol = (typeof p.protocol === 'string' ? p.protocol.toUpperCase() : 'TCP') as PortProtocol;
      out.push({
        containerPort: p.containerPort,
        protocol,
        ...(typeof p.name === 'string' ? { name: p.name } : {}),
      });
    }
  return out;
}

/** The (protocol, port) list a destination is probed on. */
function portsFor(pod: KubeObject, specs: readonly PortSpec[] | undefined, notes: string[], key: string) {
  const declared = containerPorts(pod);
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

const isFinished = (pod: KubeObject) => {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

/**
 * @example const r = await runConnectivity(loadManifests(['app.yaml']), { world: new SimWorld() });
 *   r.pairs.filter((p) => !p.allowed)
 */
export async function runConnectivity(s: LoadedScenario, opts: ConnectivityOptions): Promise<ConnectivityResult> {
  const settings = opts.settings ?? settingsFromScenario(s.cluster);
  const expanded = expandObjects(
    s.objects.map((o) => o.object),
    {
      ...(s.cluster.nodes !== undefined ? { nodes: s.cluster.nodes } : {}),
      serviceCIDR: settings.serviceClusterIPRange,
    },
  );
  const notes: string[] = [];
  const pods: { key: string; pod: KubeObject }[] = [];
  for (const o of expanded.objects) {
    if (o.kind !== 'Pod') continue;
    const key = `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
    if ((o.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork === true) {
      notes.push(`${key} uses the host network: left out (its node's network, not the overlay)`);
      continue;
    }
    if (isFinished(o)) {
      notes.push(`${key} has finished: left out (its address is released)`);
      continue;
    }
    pods.push({ key, pod: o });
  }
  const probes: ScenarioProbe[] = [];
  const targets = new Map(pods.map(({ key, pod }) => [key, portsFor(pod, opts.ports, notes, key)]));
  for (const from of pods)
    for (const to of pods) {
      if (from.key === to.key) continue;
      for (const p of targets.get(to.key) ?? [])
        probes.push({ from: from.key, to: to.key, protocol: p.protocol, port: p.port, allowed: true });
    }
  for (const { key } of pods)
    if ((targets.get(key) ?? []).length === 0 && opts.ports === undefined)
      notes.push(`${key} declares no container port: nothing is probed towards it (give --ports)`);
  opts.onProgress?.(`${pods.length} pods, ${probes.length} probes`);
  const run = await runScenario(
    { ...s, expect: probes, steps: [] },
    {
      world: opts.world,
      settings,
      unresolvable: 'deny',
      ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
  );
  const pairs = run.results.map((r) => ({
    from: r.from,
    to: r.to,
    protocol: r.protocol as PortProtocol,
    port: r.port!,
    allowed: r.allowed,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.unsure ? { unsure: r.unsure } : {}),
  }));
  return { pods: pods.map((p) => p.key), pairs, notes, warnings: run.warnings };
}
