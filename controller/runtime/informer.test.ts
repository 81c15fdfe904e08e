import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../cluster/memory.ts';
import type { ClusterError, ClusterSource, KubeObject, Watch, WatchEvent } from '../cluster/types.ts';
import { SimClock } from './clock.ts';
import { Informer } from './informer.ts';

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

/** A source whose watches start only when the test says so (a watch that was cut off and comes back). */
class HeldWatches implements ClusterSource {
  private held: (() => void)[] = [];
  constructor(readonly inner: MemoryCluster) {}
  list: ClusterSource['list'] = (kind, opts) => this.inner.list(kind, opts);
  get: ClusterSource['get'] = (ref) => this.inner.get(ref);
  create: ClusterSource['create'] = (o) => this.inner.create(o);
  update: ClusterSource['update'] = (o) => this.inner.update(o);
  updateStatus: ClusterSource['updateStatus'] = (o) => this.inner.updateStatus(o);
  patch: ClusterSource['patch'] = (ref, p, opts) => this.inner.patch(ref, p, opts);
  delete: ClusterSource['delete'] = (ref) => this.inner.delete(ref);
  recordEvent: ClusterSource['recordEvent'] = (e) => this.inner.recordEvent(e);
  watches = 0;
  watch(kind: string, rv: string, onEvent: (e: WatchEvent) => void, onError?: (e: ClusterError) => void): Watch {
    this.watches++;
    let inner: Watch | undefined;
    let stopped = false;
    this.held.push(() => {
      if (!stopped) inner = this.inner.watch(kind, rv, onEvent, onError);
    });
    return {
      stop: () => {
        stopped = true;
        inner?.stop();
      },
    };
  }
  release(): void {
    const held = this.held;
    this.held = [];
    for (const start of held) start();
  }
}

describe('Informer', () => {
  it('lists into the cache, then calls add, update and delete handlers in order', async () => {
    const c = new MemoryCluster();
    await c.create(pod('b'));
    await c.create(pod('a', 'x'));
    await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const inf = new Informer(c, 'Pod');
    const log = recorder(inf);
    expect(inf.hasSynced()).toBe(false);
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    await inf.synced();
    expect(log).toEqual(['add default/b', 'add x/a']);
    expect(inf.list().map(keyOfObj)).toEqual(['default/b', 'x/a']);
    const created = c.create(pod('c'));
    // The watch delivers asynchronously: not in the cache yet.
    expect(inf.get('default/c')).toBeUndefined();
    await created;
    await c.patch({ kind: 'Pod', name: 'b' }, { metadata: { labels: { v: '2' } } });
    await c.delete({ kind: 'Pod', namespace: 'x', name: 'a' });
    await settle();
    expect(log).toEqual(['add default/b', 'add x/a', 'add default/c', 'update default/b 1→5', 'delete x/a']);
    expect(inf.get('default/b')?.metadata.labels).toEqual({ v: '2' });
    expect(inf.list().map(keyOfObj)).toEqual(['default/b', 'default/c']);
  });

  it('relists after Gone and signals only the difference', async () => {
    const c = new MemoryCluster({ historyLimit: 2 });
    for (const n of ['a', 'b', 'd']) await c.create(pod(n));
    const src = new HeldWatches(c);
    const inf = new Informer(src, 'Pod');
    await inf.start();
    const log = recorder(inf);
    // While the watch is away: c added, a changed, b deleted, d untouched; more changes than the history holds.
    await c.create(pod('c'));
    await c.patch({ kind: 'Pod', name: 'a' }, { metadata: { labels: { v: '2' } } });
    await c.delete({ kind: 'Pod', name: 'b' });
    src.release();
    await settle();
    expect(inf.stats.lists).toBe(2);
    expect(src.watches).toBe(2);
    expect(log).toEqual(['update default/a 1→5', 'add default/c', 'delete default/b']);
    expect(inf.list().map(keyOfObj)).toEqual(['default/a', 'default/c', 'default/d']);
    // The new watch follows from the relist's version.
    src.release();
    await c.delete({ kind: 'Pod', name: 'd' });
    await settle();
    expect(log.at(-1)).toBe('delete default/d');
    expect(inf.stats.lists).toBe(2);
  });

  it('calls nothing after stop', async () => {
    const c = new MemoryCluster();
    const inf = new Informer(c, 'Pod');
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
    const inf = new Informer(c, 'Pod', { namespace: 'x', onError: (e) => errors.push(e) });
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
});

const keyOfObj = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
