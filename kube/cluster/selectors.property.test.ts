/**
 * The invariant a client of a watch with a selector relies on (an informer
 * with a label or field selector, `kovn daemon` with its node's field
 * selector): the objects in scope at a version, with the watch's events
 * from that version applied, are exactly the objects in scope at the end,
 * whatever writes happened in between (objects entering and leaving the
 * scope included), live or replayed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from './memory.ts';
import type { KubeObject, ListOptions, WatchEvent } from './types.ts';

const NAMES = ['a', 'b', 'c', 'd'];
const NAMESPACES = ['x', 'y'];
const APPS = ['web', 'db'];
const NODES = ['n1', 'n2'];

type Op =
  | { op: 'create' | 'replace'; ns: string; name: string; app: string; node: string }
  | { op: 'label'; ns: string; name: string; app: string | null }
  | { op: 'status'; ns: string; name: string; phase: string }
  | { op: 'finalize' | 'unfinalize' | 'delete'; ns: string; name: string };

const key = { ns: fc.constantFrom(...NAMESPACES), name: fc.constantFrom(...NAMES) };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constantFrom('create' as const, 'replace' as const),
    ...key,
    app: fc.constantFrom(...APPS),
    node: fc.constantFrom(...NODES),
  }),
  fc.record({ op: fc.constant('label' as const), ...key, app: fc.constantFrom(...APPS, null) }),
  fc.record({ op: fc.constant('status' as const), ...key, phase: fc.constantFrom('Pending', 'Running') }),
  fc.record({ op: fc.constantFrom('finalize' as const, 'unfinalize' as const, 'delete' as const), ...key }),
);

const scopeArb: fc.Arbitrary<ListOptions> = fc.record(
  {
    namespace: fc.constantFrom(...NAMESPACES),
    labelSelector: fc.constantFrom('app=web', 'app!=web', 'app in (web,db)', '!app', 'app'),
    fieldSelector: fc.constantFrom('spec.nodeName=n1', 'status.phase=Running', 'metadata.name!=a'),
  },
  { requiredKeys: [] },
);

async function apply(c: MemoryCluster, o: Op): Promise<void> {
  const ref = { kind: 'Pod', namespace: o.ns, name: o.name };
  const pod = (app: string, node: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: o.name, namespace: o.ns, labels: { app } },
    spec: { nodeName: node },
  });
  try {
    if (o.op === 'create') await c.create(pod(o.app, o.node));
    else if (o.op === 'replace') await c.update(pod(o.app, o.node));
    else if (o.op === 'label') await c.patch(ref, { metadata: { labels: { app: o.app } } });
    else if (o.op === 'status') await c.patch(ref, { status: { phase: o.phase } }, { subresource: 'status' });
    else if (o.op === 'finalize') await c.patch(ref, { metadata: { finalizers: ['f'] } });
    else if (o.op === 'unfinalize') await c.patch(ref, { metadata: { finalizers: null } });
    else await c.delete(ref);
  } catch {
    // Refused writes (absent, taken, a finalizer added while deleting) change nothing: part of the sequence.
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** `list` with `events` applied, as an informer's cache holds it: name → resourceVersion. */
function replay(list: readonly KubeObject[], events: readonly WatchEvent[]): Map<string, string | undefined> {
  const cache = new Map(list.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
  for (const e of events) {
    const k = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (e.type === 'DELETED') {
      expect(cache.has(k), `DELETED ${k} was never in scope`).toBe(true);
      cache.delete(k);
    } else {
      expect(cache.has(k), `${e.type} ${k}`).toBe(e.type === 'MODIFIED');
      cache.set(k, e.object.metadata.resourceVersion);
    }
  }
  return cache;
}

describe('a watch with a selector keeps a cache equal to the list', () => {
  it('live and replayed, over any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 25 }),
        fc.array(opArb, { maxLength: 25 }),
        scopeArb,
        async (before, after, scope) => {
          const c = new MemoryCluster();
          for (const o of before) await apply(c, o);
          const start = await c.list('Pod', scope);
          const live: WatchEvent[] = [];
          const w = c.watch('Pod', start.resourceVersion, (e) => live.push(e), undefined, scope);
          for (const o of after) await apply(c, o);
          await flush();
          w.stop();
          const replayed: WatchEvent[] = [];
          c.watch('Pod', start.resourceVersion, (e) => replayed.push(e), undefined, scope);
          await flush();
          const end = await c.list('Pod', scope);
          const want = new Map(
            end.items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]),
          );
          expect(replay(start.items, live)).toEqual(want);
          expect(replay(start.items, replayed)).toEqual(want);
        },
      ),
      { numRuns: 300 },
    );
  });
});
