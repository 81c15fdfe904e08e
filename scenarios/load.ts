/**
 * Scenario files (docs/architecture.md, "Scenario files"): one multi-document
 * YAML (or JSON) file or a folder of them, read into the Kubernetes objects
 * they hold plus at most one `kind: Scenario` (apiVersion kovn.io/v1alpha1)
 * with its `spec.cluster`, `spec.expect` and `spec.steps`. Files are read as
 * kubectl reads them, with size and nesting limits (read-files.ts,
 * kube-yaml.ts, kube-json.ts).
 *
 * - `List` documents are flattened into their items.
 * - Objects of kinds kovn does not handle (by apiVersion and kind,
 *   kube/objects/kinds.ts) are reported, one `UnsupportedKind` warning
 *   each, never dropped silently.
 * - Anything malformed is a {@link ScenarioLoadError} naming the file, the
 *   document (0-based), the line and the field; the Scenario document is
 *   checked strictly (an unknown field is an error: a typo in an expectation
 *   must not pass as a scenario with fewer checks).
 * Object contents are not interpreted here: the controller's decoding of each
 * kind reports its own problems on the object.
 */
import { isMap, isSeq, type LineCounter, type Node } from 'yaml';
import type { ScenarioClusterSpec } from '../controller/config.ts';
import { isPlainObject } from '../kube/cluster/json.ts';
import { classifyKind } from '../kube/objects/kinds.ts';
import type { Warning } from '../kube/objects/warnings.ts';
import { readJsonDocuments } from './kube-json.ts';
import { type ReadDocument, readYamlDocuments } from './kube-yaml.ts';
import { hostsOf, type ScenarioHost } from './hosts.ts';
import { type ScenarioLoadErrorCode, ScenarioLoadError, type Source } from './load-error.ts';
import { isJsonFile, MANIFEST, ReadBudget, type ReadLimits, listManifestFiles } from './read-files.ts';

export { type ScenarioLoadErrorCode, ScenarioLoadError, type Source } from './load-error.ts';
export { READ_LIMITS, type ReadLimits } from './read-files.ts';
export type { ScenarioHost } from './hosts.ts';

export type ProbeProtocol = 'TCP' | 'UDP' | 'SCTP' | 'ICMP';

export interface ScenarioProbe {
  readonly from: string;
  readonly to: string;
  readonly protocol: ProbeProtocol;
  /** Absent for ICMP. */
  readonly port?: number;
  readonly allowed: boolean;
  /**
   * Send as someone else (port security): the source address and/or MAC of
   * another pod (`ns/pod`) or given literally. UDP and ICMP only: a spoofed
   * probe's verdict is its first packet delivered (the reply goes to the
   * address's owner).
   */
  readonly spoof?: ProbeSpoof;
  /**
   * To an outside host: the node whose join port the packet must leave the
   * cluster network by (a centralized subnet's active gateway, a distributed
   * subnet's own node); leaving by another node does not count as arriving.
   */
  readonly via?: string;
  /**
   * To an outside host: whether the gateway node masquerades the packet
   * (natOutgoing and natOutgoingPolicyRules, as Kube-OVN's node iptables
   * decide); the other answer does not count as arriving.
   */
  readonly snat?: boolean;
}

export interface ProbeSpoof {
  readonly ip?: string;
  readonly mac?: string;
}

export interface ObjectRef {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** A Kubernetes object as written, with its source. */
export interface LoadedObject {
  readonly object: Readonly<Record<string, unknown>>;
  readonly kind: string;
  readonly source: Source;
}

export interface ScenarioStep {
  readonly apply: readonly LoadedObject[];
  readonly delete: readonly ObjectRef[];
  readonly expect: readonly ScenarioProbe[];
  /** `UnsupportedKind` warnings of the objects this step applies (they stand from this step on). */
  readonly warnings?: readonly Warning[];
}

export interface LoadedScenario {
  readonly name: string;
  readonly objects: readonly LoadedObject[];
  readonly cluster: ScenarioClusterSpec;
  readonly expect: readonly ScenarioProbe[];
  readonly steps: readonly ScenarioStep[];
  /** Physical hosts on provider networks (`spec.hosts`; scenarios/hosts.ts): probes name them `host/<name>`. */
  readonly hosts: readonly ScenarioHost[];
  /**
   * One `UnsupportedKind` warning per object not handled, with what a verdict
   * may depend on: the scenario's own objects here, each step's in the step.
   */
  readonly warnings: readonly Warning[];
}

const PROTOCOLS: readonly string[] = ['TCP', 'UDP', 'SCTP', 'ICMP'];
const SCENARIO_FIELDS = ['apiVersion', 'kind', 'metadata', 'spec'];
const SPEC_FIELDS = ['cluster', 'hosts', 'expect', 'steps'];
const CLUSTER_FIELDS = ['defaultSubnet', 'joinSubnet', 'serviceCIDR', 'nodes'];
const PROBE_FIELDS = ['from', 'to', 'protocol', 'port', 'allowed', 'spoof', 'via', 'snat'];
const STEP_FIELDS = ['apply', 'delete', 'expect'];

type Path = readonly (string | number)[];
const fieldOf = (path: Path) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');

/** One document's context: where it is, and how to find the line of a field. */
class DocCtx {
  constructor(
    readonly file: string,
    readonly index: number,
    private readonly contents: Node | null,
    private readonly lines: LineCounter,
    private readonly docLine: number,
  ) {}

  lineOf(path: Path): number {
    let node: unknown = this.contents;
    let found: unknown = node;
    for (const key of path) {
      if (isMap(node)) node = node.get(key, true);
      else if (isSeq(node) && typeof key === 'number') node = node.get(key, true);
      else break;
      if (node === undefined) break;
      found = node;
    }
    const range = (found as { range?: [number, number, number] } | null)?.range;
    return range ? this.lines.linePos(range[0]).line : this.docLine;
  }

  fail(code: ScenarioLoadErrorCode, path: Path, detail: string): never {
    throw new ScenarioLoadError(
      code,
      { file: this.file, doc: this.index, line: this.lineOf(path) },
      fieldOf(path),
      detail,
    );
  }

  source(path: Path = []): Source {
    return { file: this.file, doc: this.index, line: this.lineOf(path) };
  }
}

function onlyFields(ctx: DocCtx, v: Record<string, unknown>, allowed: readonly string[], path: Path): void {
  for (const k of Object.keys(v))
    if (!allowed.includes(k)) ctx.fail('shape', [...path, k], `unknown field (expected one of ${allowed.join(', ')})`);
}

function probeOf(ctx: DocCtx, v: unknown, path: Path, hosts: ReadonlySet<string>): ScenarioProbe {
  if (!isPlainObject(v)) ctx.fail('shape', path, 'a probe is a mapping {from, to, protocol, port, allowed}');
  onlyFields(ctx, v, PROBE_FIELDS, path);
  for (const f of ['from', 'to'] as const)
    if (typeof v[f] !== 'string' || v[f] === '')
      ctx.fail('shape', [...path, f], 'must be ns/pod, an IP, svc/ns/name or host/name');
    else if (v[f].startsWith('host/') && !hosts.has(v[f].slice(5)))
      ctx.fail('shape', [...path, f], `no host ${v[f].slice(5)} in spec.hosts`);
  const protocol = v.protocol;
  if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol))
    ctx.fail('shape', [...path, 'protocol'], `must be one of ${PROTOCOLS.join(', ')}`);
  if (typeof v.allowed !== 'boolean') ctx.fail('shape', [...path, 'allowed'], 'must be true or false');
  const spoof = {
    ...(v.spoof === undefined ? {} : { spoof: spoofOf(ctx, v.spoof, protocol, [...path, 'spoof']) }),
    ...egressOf(ctx, v, path),
  };
  if (protocol === 'ICMP') {
    if (v.port !== undefined) ctx.fail('shape', [...path, 'port'], 'ICMP probes have no port');
    return { from: v.from as string, to: v.to as string, protocol, allowed: v.allowed, ...spoof };
  }
  const port = v.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    ctx.fail('shape', [...path, 'port'], 'must be a port number 1..65535');
  const protocolOf = protocol as ProbeProtocol;
  return { from: v.from as string, to: v.to as string, protocol: protocolOf, port, allowed: v.allowed, ...spoof };
}

/** A probe's `via` (a node's name) and `snat` (true or false), for probes to outside hosts. */
function egressOf(ctx: DocCtx, v: Record<string, unknown>, path: Path): { via?: string; snat?: boolean } {
  if (v.via !== undefined && (typeof v.via !== 'string' || v.via === ''))
    ctx.fail('shape', [...path, 'via'], "must be a node's name");
  if (v.snat !== undefined && typeof v.snat !== 'boolean')
    ctx.fail('shape', [...path, 'snat'], 'must be true or false');
  return {
    ...(v.via === undefined ? {} : { via: v.via as string }),
    ...(v.snat === undefined ? {} : { snat: v.snat as boolean }),
  };
}

function spoofOf(ctx: DocCtx, v: unknown, protocol: string, path: Path): ProbeSpoof {
  if (!isPlainObject(v)) ctx.fail('shape', path, 'spoof is a mapping {ip?, mac?}: ns/pod, or an address');
  onlyFields(ctx, v, ['ip', 'mac'], path);
  for (const f of ['ip', 'mac'] as const)
    if (v[f] !== undefined && (typeof v[f] !== 'string' || v[f] === ''))
      ctx.fail('shape', [...path, f], f === 'ip' ? 'must be ns/pod or an IP address' : 'must be ns/pod or a MAC');
  if (v.ip === undefined && v.mac === undefined) ctx.fail('shape', path, 'names ip, mac or both');
  if (protocol !== 'UDP' && protocol !== 'ICMP')
    ctx.fail('shape', path, 'only UDP and ICMP probes spoof: the verdict is the first packet delivered');
  return v as ProbeSpoof;
}

function probesOf(ctx: DocCtx, v: unknown, path: Path, hosts: ReadonlySet<string>): ScenarioProbe[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) ctx.fail('shape', path, 'must be a list of probes');
  return v.map((p, i) => probeOf(ctx, p, [...path, i], hosts));
}

function clusterOf(ctx: DocCtx, v: unknown, path: Path): ScenarioClusterSpec {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) ctx.fail('shape', path, 'must be a mapping');
  onlyFields(ctx, v, CLUSTER_FIELDS, path);
  for (const f of ['defaultSubnet', 'joinSubnet', 'serviceCIDR'] as const)
    if (v[f] !== undefined && typeof v[f] !== 'string') ctx.fail('shape', [...path, f], 'must be a CIDR string');
  if (
    v.nodes !== undefined &&
    (typeof v.nodes !== 'number' || !Number.isInteger(v.nodes) || v.nodes < 1 || v.nodes > 10_000)
  )
    ctx.fail('shape', [...path, 'nodes'], 'must be a whole number 1..10000');
  return v as ScenarioClusterSpec;
}

function objectRef(ctx: DocCtx, v: unknown, path: Path): ObjectRef {
  if (!isPlainObject(v)) ctx.fail('shape', path, 'a reference is {kind, namespace?, name}');
  onlyFields(ctx, v, ['kind', 'namespace', 'name', 'apiVersion'], path);
  if (typeof v.kind !== 'string') ctx.fail('shape', [...path, 'kind'], 'must be a string');
  if (typeof v.name !== 'string') ctx.fail('shape', [...path, 'name'], 'must be a string');
  if (v.namespace !== undefined && typeof v.namespace !== 'string')
    ctx.fail('shape', [...path, 'namespace'], 'must be a string');
  return { kind: v.kind, name: v.name, ...(typeof v.namespace === 'string' ? { namespace: v.namespace } : {}) };
}

/** The objects of one document: itself, or a List's items. */
function objectsOf(ctx: DocCtx, v: unknown, path: Path): LoadedObject[] {
  if (!isPlainObject(v)) ctx.fail('shape', path, 'a Kubernetes object is a mapping with apiVersion, kind, metadata');
  if (typeof v.kind !== 'string' || v.kind === '') ctx.fail('shape', [...path, 'kind'], 'missing or not a string');
  if (v.kind === 'List' || v.kind.endsWith('List')) {
    if (!Array.isArray(v.items)) ctx.fail('shape', [...path, 'items'], 'a List needs items');
    return v.items.flatMap((item, i) => objectsOf(ctx, item, [...path, 'items', i]));
  }
  if (typeof v.apiVersion !== 'string') ctx.fail('shape', [...path, 'apiVersion'], 'missing or not a string');
  const meta = v.metadata;
  if (!isPlainObject(meta) || typeof meta.name !== 'string' || meta.name === '')
    ctx.fail('shape', [...path, 'metadata', 'name'], 'every object needs metadata.name');
  return [{ object: v, kind: v.kind, source: ctx.source(path) }];
}

interface Accumulator {
  objects: LoadedObject[];
  scenario?: { value: Record<string, unknown>; ctx: DocCtx };
}

/**
 * Reads one file's text into `acc` (pure apart from the accumulator): JSON
 * when the name ends in `.json` (any case), YAML otherwise, each document as
 * kubectl would read it (kube-yaml.ts, kube-json.ts).
 */
export function readScenarioText(file: string, text: string, acc: Accumulator = { objects: [] }): Accumulator {
  const docs: Iterable<ReadDocument> = isJsonFile(file) ? readJsonDocuments(file, text) : readYamlDocuments(file, text);
  for (const { index, value, contents, lines, line } of docs) {
    if (value === null || value === undefined) continue; // an empty document (a trailing ---)
    const ctx = new DocCtx(file, index, contents, lines, line);
    if (isPlainObject(value) && value.kind === 'Scenario') {
      if (acc.scenario)
        ctx.fail(
          'two-scenarios',
          [],
          `a second Scenario (the first is in ${acc.scenario.ctx.file}, document ${acc.scenario.ctx.index})`,
        );
      acc.scenario = { value, ctx };
      continue;
    }
    for (const o of objectsOf(ctx, value, [])) acc.objects.push(o);
  }
  return acc;
}

/** The Scenario and objects read so far, checked and assembled. */
export function assembleScenario(acc: Accumulator, fallbackName: string): LoadedScenario {
  let name = fallbackName;
  let cluster: ScenarioClusterSpec = {};
  let expect: ScenarioProbe[] = [];
  let steps: ScenarioStep[] = [];
  let hosts: ScenarioHost[] = [];
  if (acc.scenario) {
    const v = acc.scenario.value;
    const ctx: DocCtx = acc.scenario.ctx;
    onlyFields(ctx, v, SCENARIO_FIELDS, []);
    if (v.apiVersion !== 'kovn.io/v1alpha1') ctx.fail('shape', ['apiVersion'], 'a Scenario is kovn.io/v1alpha1');
    if (isPlainObject(v.metadata) && typeof v.metadata.name === 'string') name = v.metadata.name;
    const spec: unknown = v.spec ?? {};
    if (!isPlainObject(spec)) ctx.fail('shape', ['spec'], 'must be a mapping');
    onlyFields(ctx, spec, SPEC_FIELDS, ['spec']);
    cluster = clusterOf(ctx, spec.cluster, ['spec', 'cluster']);
    hosts = hostsOf(spec.hosts, (path, detail) => ctx.fail('shape', path, detail), ['spec', 'hosts']);
    const names = new Set(hosts.map((h) => h.name));
    expect = probesOf(ctx, spec.expect, ['spec', 'expect'], names);
    const rawSteps = spec.steps ?? [];
    if (!Array.isArray(rawSteps)) ctx.fail('shape', ['spec', 'steps'], 'must be a list');
    steps = rawSteps.map((s, i) => {
      const path = ['spec', 'steps', i];
      if (!isPlainObject(s)) ctx.fail('shape', path, 'a step is {apply?, delete?, expect?}');
      onlyFields(ctx, s, STEP_FIELDS, path);
      const apply = s.apply ?? [];
      if (!Array.isArray(apply)) ctx.fail('shape', [...path, 'apply'], 'must be a list of objects');
      const del = s.delete ?? [];
      if (!Array.isArray(del)) ctx.fail('shape', [...path, 'delete'], 'must be a list of references');
      return {
        apply: apply.flatMap((o, j) => objectsOf(ctx, o, [...path, 'apply', j])),
        delete: del.map((r, j) => objectRef(ctx, r, [...path, 'delete', j])),
        expect: probesOf(ctx, s.expect, [...path, 'expect'], names),
      };
    });
  }
  const handled = new Set<LoadedObject>();
  /** The warnings of one list of objects (the scenario's own, or one step's). */
  const unhandled = (list: readonly LoadedObject[]): Warning[] => {
    const out: Warning[] = [];
    for (const o of list) {
      const c = classifyKind(o.object);
      if (c.handled) {
        handled.add(o);
        continue;
      }
      const meta = o.object.metadata as { name?: unknown; namespace?: unknown } | undefined;
      out.push({
        code: 'UnsupportedKind',
        kind: o.kind,
        namespace: typeof meta?.namespace === 'string' ? meta.namespace : '',
        name: typeof meta?.name === 'string' ? meta.name : '',
        field: '',
        message: `${c.message} (${o.source.file}, document ${o.source.doc}, line ${o.source.line})`,
        ...(c.scope ? { scope: c.scope } : {}),
      });
    }
    return out;
  };
  const warnings = unhandled(acc.objects);
  const stepWarnings = steps.map((s) => unhandled(s.apply));
  const known = (list: readonly LoadedObject[]) => list.filter((o) => handled.has(o));
  return {
    name,
    objects: known(acc.objects),
    cluster,
    expect,
    steps: steps.map((s, i) => ({ ...s, apply: known(s.apply), warnings: stepWarnings[i]! })),
    hosts,
    warnings,
  };
}

/** Loads a scenario file or a folder of `.yaml`, `.yml` and `.json` files (sorted by name). */
export function loadScenario(path: string): LoadedScenario {
  return loadManifests([path]);
}

/**
 * Loads files and folders as one scenario (in the order given, a folder's
 * files sorted by name): plain manifests need no Scenario document. An input
 * with neither a Kubernetes object nor a Scenario is an error: an answer about
 * nothing would look like an answer.
 *
 * @example loadManifests(['cluster/', 'policy.yaml']).objects.length
 * @throws ScenarioLoadError naming the file (and document, line, field when they apply).
 */
export function loadManifests(paths: readonly string[], opts: { readonly limits?: ReadLimits } = {}): LoadedScenario {
  const acc: Accumulator = { objects: [] };
  const budget = new ReadBudget(opts.limits);
  for (const file of listManifestFiles(paths)) readScenarioText(file, budget.readText(file), acc);
  const first = paths[0] ?? 'manifests';
  if (acc.objects.length === 0 && acc.scenario === undefined)
    throw new ScenarioLoadError(
      'empty',
      { file: paths.join(', ') || 'manifests', doc: 0, line: 0 },
      '',
      'no Kubernetes object and no Scenario in this input (empty, only comments or only ---)',
    );
  const base = first.split('/').filter(Boolean).pop() ?? first;
  return assembleScenario(acc, base.replace(MANIFEST, ''));
}

/**
 * Probes a scenario checks: its `expect` and every step's.
 *
 * @example countProbes(loadScenario('scenarios/quickstart.yaml')) > 0
 */
export function countProbes(s: LoadedScenario): number {
  return s.expect.length + s.steps.reduce((n, step) => n + step.expect.length, 0);
}

/**
 * For `kovn sim run`: a scenario without a probe is an error, not "0/0 probes
 * as expected" (a confident answer about nothing). Plain manifests without a
 * Scenario are fine for `sim connectivity`, which probes every pod pair.
 *
 * @example requireProbes(loadScenario(file), file)
 * @throws ScenarioLoadError 'no-probes' naming the input.
 */
export function requireProbes(s: LoadedScenario, input: string): void {
  if (countProbes(s) > 0) return;
  throw new ScenarioLoadError(
    'no-probes',
    { file: input, doc: 0, line: 0 },
    '',
    `no probe to check: scenario ${JSON.stringify(s.name)} has no spec.expect and no step with expect (for every pod pair of plain manifests, use kovn sim connectivity)`,
  );
}
