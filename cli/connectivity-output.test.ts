import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warningJSON } from '../kube/objects/warnings.ts';
import {
  type ConnectivityResult,
  connectivityPlan,
  runConnectivity,
  streamConnectivity,
} from '../scenarios/connectivity.ts';
import { type LoadedScenario, loadManifests } from '../scenarios/load.ts';
import { SimWorld } from '../scenarios/run.ts';
import {
  ChunkedWriter,
  type ConnectivityOutput,
  ConnectivityJson,
  ConnectivityText,
  pairJSON,
  type Writable,
} from './connectivity-output.ts';

/** Collects what is written; refuses (returns false) every `refuseEvery`-th chunk until the test drains it. */
class Sink implements Writable {
  readonly chunks: string[] = [];
  private drain: (() => void) | undefined;
  constructor(private readonly refuseEvery = 0) {}
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return this.refuseEvery === 0 || this.chunks.length % this.refuseEvery !== 0;
  }
  once(_: 'drain', listener: () => void): this {
    this.drain = listener;
    return this;
  }
  /** The stream took what it had: the writer may go on. */
  drained(): boolean {
    const d = this.drain;
    this.drain = undefined;
    d?.();
    return d !== undefined;
  }
  get text(): string {
    return this.chunks.join('');
  }
}

/**
 * 30 pods in two namespaces with a declared port each, a NetworkPolicy (denied
 * pairs with a reason) and a pod with an annotation kovn does not act on (a
 * warning, and pairs `unsure`): 870 pairs, more than one output chunk.
 */
function input(dir: string): LoadedScenario {
  const items: object[] = [];
  for (let i = 0; i < 30; i++)
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `p${i}`,
        namespace: i < 15 ? 'front' : 'back',
        labels: { app: i % 2 ? 'web' : 'db' },
        ...(i === 3 ? { annotations: { 'ovn.kubernetes.io/north_gateway': '10.16.0.254' } } : {}),
      },
      spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8000 + (i % 3) }] }] },
    });
  items.push({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db-from-web', namespace: 'back' },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
    },
  });
  const file = join(dir, 'cluster.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  return loadManifests([file]);
}

async function streamed(s: LoadedScenario, make: (w: ChunkedWriter) => ConnectivityOutput): Promise<string> {
  const sink = new Sink();
  const out = make(new ChunkedWriter(sink));
  const world = new SimWorld();
  try {
    const plan = await connectivityPlan(s, {});
    const sum = await streamConnectivity(s, plan, { world, onPair: (p) => out.pair(p) });
    await out.end(sum);
  } finally {
    await world.close();
  }
  return sink.text;
}

describe('sim connectivity output, streamed', () => {
  let dir: string;
  let s: LoadedScenario;
  let whole: ConnectivityResult;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kovn-conn-out-'));
    s = input(dir);
    const world = new SimWorld();
    whole = await runConnectivity(s, { world }).finally(() => world.close());
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same JSON document as the whole result stringified', { timeout: 60_000 }, async () => {
    expect(whole.pairs).toHaveLength(870);
    // What the input is for: denied pairs with reasons, unsure pairs, warnings.
    expect(whole.pairs.some((p) => !p.allowed && p.reason)).toBe(true);
    expect(whole.pairs.some((p) => p.unsure)).toBe(true);
    expect(whole.warnings.length).toBeGreaterThan(0);
    const unstreamed = `${JSON.stringify({ pairs: whole.pairs.map(pairJSON), warnings: whole.warnings.map(warningJSON) })}\n`;
    const text = await streamed(s, (w) => new ConnectivityJson(w));
    expect(unstreamed.length).toBeGreaterThan(1 << 16);
    expect(text).toBe(unstreamed);
  });

  it('writes the text a line per pair as answered, then the warnings and the counts', { timeout: 60_000 }, async () => {
    const text = await streamed(s, (w) => new ConnectivityText(whole.pods, w));
    const lines = text.trimEnd().split('\n');
    expect(lines.slice(0, 870).map((l) => l.split(' - ')[0])).toEqual(
      whole.pairs.map((p) => `${p.allowed ? 'allowed' : 'denied '} ${p.from} -> ${p.to} ${p.protocol}/${p.port}`),
    );
    expect(lines[870]).toMatch(/^\d+ warnings?: kovn did not act on these/);
    const allowed = whole.pairs.filter((p) => p.allowed).length;
    const unsure = whole.pairs.filter((p) => p.unsure).length;
    expect(lines.at(-1)).toBe(
      `${allowed}/870 pairs allowed, ${870 - allowed} denied (30 pods), ${unsure} unsure, ${whole.warnings.length} warning${whole.warnings.length === 1 ? '' : 's'}`,
    );
  });

  it('JSON with no pair is still a document', async () => {
    const sink = new Sink();
    const json = new ConnectivityJson(new ChunkedWriter(sink));
    await json.end({ ...whole, total: 0, allowed: 0, denied: 0, unsure: 0, warnings: [] });
    expect(JSON.parse(sink.text)).toEqual({ pairs: [], warnings: [] });
  });
});

describe('ChunkedWriter', () => {
  it('writes in chunks and waits for a stream that cannot take more', async () => {
    const sink = new Sink(1);
    const w = new ChunkedWriter(sink);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 63; i++) await w.write(line);
    expect(sink.chunks).toEqual([]);
    let done = false;
    const full = w.write(line).then(() => {
      done = true;
    });
    // The 64th KiB went out as one chunk, which the stream refused: the writer waits for 'drain'.
    await new Promise((r) => setImmediate(r));
    expect(sink.chunks.map((c) => c.length)).toEqual([1 << 16]);
    expect(done).toBe(false);
    expect(sink.drained()).toBe(true);
    await full;
    expect(done).toBe(true);
  });
});
