import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../cluster/memory.ts';
import { FaultyCluster } from '../cluster/faults.ts';
import {
  ClusterError,
  type KubeObject,
  keyOf,
  type ListOptions,
  type Watch,
  type WatchEvent,
} from '../cluster/types.ts';
import { SimClock } from './clock.ts';
import { Informer, InformerStoppedError } from './informer.ts';

const pod = (name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: {},
});

const settle = () => new SimClock().settle();

/** Records handler calls as `add ns/name`, `update ns/name rvOld→rvNew`, `delete ns/name`. */
function recorder(inf: Informer): string[] {
  const log: string[] = [];
  const id = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  inf.addHandlers({
    onAdd: (o) => log.push(`add ${id(o)}`),
    onUpdate: (a, b) => log.push(`update ${id(b)} ${a.metadata.resourceVersion}→${b.metadata.resourceVersion}`),
    onDelete: (o) => {
      // Handlers run after the cache changed.
      expect(inf.get(`${o.metadata.namespace}/${o.metadata.name}`)).toBeUndefined();
      log.push(`delete ${id(o)}`);
    },
  });
  return log;
}

/**
 * A source whose watches start only when the test says so (a watch that was
 * cut off and comes back); every other call passes through FaultyCluster.
 */
class HeldWatches extends FaultyCluster {
  private unstarted: (() => void)[] = [];
  /** Watches asked for, started or not. */
  opened = 0;
  override watch(
    kind: string,
    rv: string,
    onEvent: (e: WatchEvent) => void,
    onError?: (e: ClusterError) => void,
  ): Watch {
    this.opened++;
    let inner: Watch | undefined;
    let stopped = false;
    this.unstarted.push(() => {
      if (!stopped) inner = super.watch(kind, rv, onEvent, onError);
    });
    return {
      stop: () => {
        stopped = true;
        inner?.stop();
      },
    };
  }
  /** Starts the watches held so far. */
  resume(): void {
    const unstarted = this.unstarted;
    this.unstarted = [];
    for (const start of unstarted) start();
  }
}

describe('Informer', () => {
  it('lists into the cache, then calls add, update and delete handlers in order', async () => {
    const c = new MemoryCluster();
    await c.create(pod('b'));
    await c.create(pod('a', 'x'));
    await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const inf = new Informer(c, 'Pod', { clock: new SimClock() });
    const log = recorder(inf);
    expect(inf.hasSynced()).toBe(false);
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    await inf.synced();
    expect(log).toEqual(['add default/b', 'add x/a']);
    expect(inf.list().map(keyOf)).toEqual(['default/b', 'x/a']);
    // A caller may sort or splice what it gets: the informer's own order stays.
    inf.list().reverse();
    expect(inf.list().map(keyOf)).toEqual(['default/b', 'x/a']);
    const created = c.create(pod('c'));
    // The watch delivers asynchronously: not in the cache yet.
    expect(inf.get('default/c')).toBeUndefined();
    await created;
    await c.patch({ kind: 'Pod', name: 'b' }, { metadata: { labels: { v: '2' } } });
    await c.delete({ kind: 'Pod', namespace: 'x', name: 'a' });
    await settle();
    expect(log).toEqual(['add default/b', 'add x/a', 'add default/c', 'update default/b 1→5', 'delete x/a']);
    expect(inf.get('default/b')?.metadata.labels).toEqual({ v: '2' });
    expect(inf.list().map(keyOf)).toEqual(['default/b', 'default/c']);
  });

  it('relists after Gone and signals only the difference', async () => {
    const c = new MemoryCluster({ historyLimit: 2 });
    for (const n of ['a', 'b', 'd']) await c.create(pod(n));
    const src = new HeldWatches(c);
    const inf = new Informer(src, 'Pod', { clock: new SimClock() });
    await inf.start();
    // Listed once before the relist: the list kept since must not outlive it.
    expect(inf.list().map(keyOf)).toEqual(['default/a', 'default/b', 'default/d']);
    const log = recorder(inf);
    // While the watch is away: c added, a changed, b deleted, d untouched; more changes than the history holds.
    await c.create(pod('c'));
    await c.patch({ kind: 'Pod', name: 'a' }, { metadata: { labels: { v: '2' } } });
    await c.delete({ kind: 'Pod', name: 'b' });
    src.resume();
    await settle();
    expect(inf.stats.lists).toBe(2);
    expect(src.opened).toBe(2);
    expect(log).toEqual(['update default/a 1→5', 'add default/c', 'delete default/b']);
    expect(inf.list().map(keyOf)).toEqual(['default/a', 'default/c', 'default/d']);
    expect(inf.list()[0]?.metadata.labels).toEqual({ v: '2' });
    // The new watch follows from the relist's version.
    src.resume();
    await c.delete({ kind: 'Pod', name: 'd' });
    await settle();
    expect(log.at(-1)).toBe('delete default/d');
    expect(inf.stats.lists).toBe(2);
  });

  it('calls nothing after stop', async () => {
    const c = new MemoryCluster();
    const inf = new Informer(c, 'Pod', { clock: new SimClock() });
    const log = recorder(inf);
    await inf.start();
    const p = c.create(pod('a'));
    inf.stop();
    await p;
    await settle();
    expect(log).toEqual([]);
    expect(inf.get('default/a')).toBeUndefined();
  });

  it('keeps to its namespace, and reports a throwing handler without stopping', async () => {
    const c = new MemoryCluster();
    const errors: unknown[] = [];
    const inf = new Informer(c, 'Pod', { clock: new SimClock(), namespace: 'x', onError: (e) => errors.push(e) });
    inf.addHandlers({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    const log = recorder(inf);
    await c.create(pod('a', 'x'));
    await c.create(pod('b', 'y'));
    await inf.start();
    await c.create(pod('c', 'x'));
    await c.create(pod('d', 'y'));
    await settle();
    expect(log).toEqual(['add x/a', 'add x/c']);
    expect(errors.map((e) => (e instanceof Error ? e.message : e))).toEqual(['boom', 'boom']);
  });

  it('retries a failed list on its clock', async () => {
    const clock = new SimClock();
    const c = new MemoryCluster();
    await c.create(pod('a'));
    let failures = 1;
    const src = new HeldWatches(c);
    src.list = async (kind, opts) => {
      if (failures-- > 0) throw new Error('unavailable');
      return c.list(kind, opts);
    };
    const errors: unknown[] = [];
    const inf = new Informer(src, 'Pod', { clock, retryMs: 500, onError: (e) => errors.push(e) });
    let synced = false;
    void inf.start().then(() => (synced = true));
    await clock.tick(499);
    expect(synced).toBe(false);
    expect(errors).toHaveLength(1);
    await clock.tick(1);
    expect(synced).toBe(true);
    expect(inf.get('default/a')).toBeDefined();
  });

  it('recovers from a failed watch and failed relists once the source answers, backing off on its clock', async () => {
    const clock = new SimClock();
    const c = new MemoryCluster();
    await c.create(pod('a'));
    const src = new FaultyCluster(c);
    const errors: string[] = [];
    const inf = new Informer(src, 'Pod', {
      clock,
      onError: (e) => errors.push((e as { reason?: string }).reason ?? String(e)),
    });
    await inf.start();
    const log = recorder(inf);
    src.fail('list', { times: 2 });
    src.breakWatches('Pod');
    await c.create(pod('b'));
    // The first watch failure relists at once; that list is refused, and the next waits 2 × 800 ms.
    await clock.settle();
    expect(errors).toEqual(['ServiceUnavailable', 'ServiceUnavailable']);
    await clock.tick(1_599);
    expect(errors).toHaveLength(2);
    await clock.tick(1);
    // Refused again: 3,200 ms more.
    expect(errors).toHaveLength(3);
    await clock.tick(3_199);
    expect(inf.get('default/b')).toBeUndefined();
    await clock.tick(1);
    expect(log).toEqual(['add default/b']);
    expect(inf.stats.lists).toBe(2);
    // Watching again; an event delivered resets the backoff, so the next failure relists at once.
    await c.create(pod('c'));
    await clock.settle();
    src.breakWatches('Pod');
    await c.create(pod('d'));
    await clock.settle();
    expect(log).toEqual(['add default/b', 'add default/c', 'add default/d']);
    expect(errors).toHaveLength(4);
    expect(clock.pending()).toBe(0);
  });

  it('relists a watch that fails at once every time with growing delays, never in a loop', async () => {
    const clock = new SimClock();
    const c = new MemoryCluster();
    const src = new HeldWatches(c);
    src.watch = (_kind, _rv, _onEvent, onError) => {
      src.opened++;
      queueMicrotask(() => onError?.(new ClusterError('ServiceUnavailable', { kind: 'Pod', name: '' }, 'down')));
      return { stop: () => {} };
    };
    const inf = new Informer(src, 'Pod', { clock, retryMs: 100, maxRetryMs: 1_000 });
    await inf.start();
    await clock.settle();
    // Lists at 0 (start), 0 (first watch failure), then after 200, 400, 800, 1,000, 1,000 ms.
    expect(inf.stats.lists).toBe(2);
    await clock.tick(200 + 400 + 800 + 1_000 + 1_000);
    expect(inf.stats.lists).toBe(7);
    expect(src.opened).toBe(7);
  });

  it('a start whose lists keep failing ends when the informer is stopped', async () => {
    const clock = new SimClock();
    const src = new FaultyCluster(new MemoryCluster());
    src.fail('list', { times: 1_000 });
    const inf = new Informer(src, 'Pod', { clock });
    const started = inf.start().then(
      () => 'synced',
      (e: unknown) => e,
    );
    await clock.tick(60_000);
    expect(src.refused.list).toBeGreaterThan(2);
    inf.stop();
    expect(await started).toBeInstanceOf(InformerStoppedError);
    expect(clock.pending()).toBe(0);
  });

  it('waitFor resolves once the object is cached, at once when it is, and with nothing on stop', async () => {
    const c = new MemoryCluster();
    await c.create(pod('a'));
    const src = new FaultyCluster(c);
    const inf = new Informer(src, 'Pod', { clock: new SimClock() });
    await inf.start();
    expect((await inf.waitFor('default/a'))?.metadata.name).toBe('a');
    src.hold('Pod');
    let got: KubeObject | undefined;
    const later = inf.waitFor('default/b').then((o) => (got = o));
    await c.create(pod('b'));
    await settle();
    expect(got).toBeUndefined();
    src.release('Pod');
    await later;
    expect(got?.metadata.name).toBe('b');
    const never = inf.waitFor('default/never');
    inf.stop();
    expect(await never).toBeUndefined();
  });

  describe('indexers', () => {
    const byLabel = (o: KubeObject) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []);
    const names = (objs: Iterable<KubeObject>) => [...objs].map(keyOf).sort();

    it('keeps each index in step with the cache through adds, updates and deletes, before handlers run', async () => {
      const c = new MemoryCluster();
      await c.create(pod('a', 'x', { app: 'web' }));
      await c.create(pod('b', 'y'));
      const inf = new Informer(c, 'Pod', { clock: new SimClock() });
      inf.addIndexers({ app: byLabel, namespace: (o) => [o.metadata.namespace ?? ''] });
      const seen: string[][] = [];
      inf.addHandlers({ onUpdate: () => void seen.push(names(inf.byIndex('app', 'db'))) });
      await inf.start();
      expect(names(inf.byIndex('app', 'web'))).toEqual(['x/a']);
      expect([...inf.indexValues('namespace')].sort()).toEqual(['x', 'y']);
      await c.patch({ kind: 'Pod', namespace: 'x', name: 'a' }, { metadata: { labels: { app: 'db' } } });
      await settle();
      // The handler of the change already saw the object under its new value.
      expect(seen).toEqual([['x/a']]);
      expect(names(inf.byIndex('app', 'web'))).toEqual([]);
      expect([...inf.indexValues('app')]).toEqual(['db']);
      await c.delete({ kind: 'Pod', namespace: 'y', name: 'b' });
      await settle();
      expect([...inf.indexValues('namespace')]).toEqual(['x']);
    });

    it('fills an index added after the start from the cache, and refuses a name given twice', async () => {
      const c = new MemoryCluster();
      await c.create(pod('a', 'x', { app: 'web' }));
      const inf = new Informer(c, 'Pod', { clock: new SimClock() });
      await inf.start();
      inf.addIndexers({ app: byLabel });
      expect(names(inf.byIndex('app', 'web'))).toEqual(['x/a']);
      expect(() => inf.addIndexers({ app: byLabel })).toThrow(/index app exists already/);
      expect(() => inf.byIndex('nope', 'x')).toThrow(/no index nope/);
    });

    it('reports an index function that throws and files that object nowhere, the cache unharmed', async () => {
      const c = new MemoryCluster();
      await c.create(pod('a', 'x', { app: 'web' }));
      await c.create(pod('b', 'x'));
      const errors: unknown[] = [];
      const inf = new Informer(c, 'Pod', { clock: new SimClock(), onError: (e) => errors.push(e) });
      inf.addIndexers({
        app: (o) => {
          if (o.metadata.name === 'b') throw new Error('no app');
          return byLabel(o);
        },
      });
      await inf.start();
      expect(errors).toHaveLength(1);
      expect(names(inf.byIndex('app', 'web'))).toEqual(['x/a']);
      expect(inf.list().map(keyOf)).toEqual(['x/a', 'x/b']);
    });

    it('after a relist, files what changed while the watch was away and forgets what is gone', async () => {
      const c = new MemoryCluster({ historyLimit: 2 });
      for (const n of ['a', 'b', 'd']) await c.create(pod(n, 'default', { app: 'web' }));
      const src = new HeldWatches(c);
      const inf = new Informer(src, 'Pod', { clock: new SimClock() });
      inf.addIndexers({ app: byLabel });
      await inf.start();
      await c.create(pod('c', 'default', { app: 'web' }));
      await c.patch({ kind: 'Pod', name: 'a' }, { metadata: { labels: { app: 'db' } } });
      await c.delete({ kind: 'Pod', name: 'b' });
      src.resume();
      await settle();
      expect(inf.stats.lists).toBe(2);
      expect(names(inf.byIndex('app', 'web'))).toEqual(['default/c', 'default/d']);
      expect(names(inf.byIndex('app', 'db'))).toEqual(['default/a']);
    });
  });
});

describe('Informer selectors', () => {
  it('asks its source to apply the namespace and selectors in both the list and the watch', async () => {
    const c = new MemoryCluster();
    const asked: unknown[] = [];
    // The in-memory cluster refuses selectors: this source records them and passes the rest on.
    const src = Object.assign(Object.create(c) as MemoryCluster, {
      list: (kind: string, opts: ListOptions = {}) => {
        asked.push(['list', opts]);
        return c.list(kind, { ...(opts.namespace ? { namespace: opts.namespace } : {}) });
      },
      watch: (
        kind: string,
        rv: string,
        onEvent: (e: WatchEvent) => void,
        onError?: (e: ClusterError) => void,
        opts: ListOptions = {},
      ) => {
        asked.push(['watch', opts]);
        return c.watch(kind, rv, onEvent, onError);
      },
    });
    const scope = { namespace: 'shop', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1' };
    const inf = new Informer(src, 'Pod', { clock: new SimClock(), ...scope });
    await inf.start();
    await settle();
    expect(asked).toEqual([
      ['list', scope],
      ['watch', scope],
    ]);
    inf.stop();
  });
});
