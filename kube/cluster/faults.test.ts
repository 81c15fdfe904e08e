import { describe, expect, it } from 'vitest';
import { FaultyCluster } from './faults.ts';
import { MemoryCluster } from './memory.ts';
import { ClusterError, type KubeObject } from './types.ts';

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: {},
});

/** Lets queued microtasks (watch deliveries) run. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

const reasonOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ClusterError ? e.reason : String(e)),
  );

describe('FaultyCluster', () => {
  it('refuses the armed calls once each, on the kind and subresource asked, and passes the rest through', async () => {
    const inner = new MemoryCluster();
    const c = new FaultyCluster(inner);
    await c.create(pod('a'));
    c.fail('patch', { kind: 'Pod', subresource: 'object', reason: 'Conflict' });
    const ref = { kind: 'Pod', namespace: 'default', name: 'a' };
    // A status patch and another kind are not what was armed.
    expect(await reasonOf(c.patch(ref, { status: { phase: 'Running' } }, { subresource: 'status' }))).toBe('resolved');
    expect(await reasonOf(c.patch(ref, { metadata: { labels: { x: '1' } } }))).toBe('Conflict');
    expect(await reasonOf(c.patch(ref, { metadata: { labels: { x: '2' } } }))).toBe('resolved');
    expect((await inner.get(ref))?.metadata.labels).toEqual({ x: '2' });
    c.fail('list', { times: 2 });
    expect(await reasonOf(c.list('Pod'))).toBe('ServiceUnavailable');
    expect(await reasonOf(c.list('Node'))).toBe('ServiceUnavailable');
    expect(await reasonOf(c.list('Pod'))).toBe('resolved');
    expect(c.refused).toEqual({ patch: 1, list: 2 });
    expect(c.pending()).toBe(0);
  });

  it('breaks open watches of a kind: the error is delivered, later events are not', async () => {
    const inner = new MemoryCluster();
    const c = new FaultyCluster(inner);
    const seen: string[] = [];
    const errors: string[] = [];
    const w = c.watch(
      'Pod',
      inner.resourceVersion,
      (e) => seen.push(e.object.metadata.name),
      (e) => errors.push(e.reason),
    );
    const nodes: string[] = [];
    c.watch('Node', inner.resourceVersion, (e) => nodes.push(e.object.metadata.name));
    await c.create(pod('a'));
    await flush();
    c.breakWatches('Pod');
    await c.create(pod('b'));
    await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await flush();
    expect(seen).toEqual(['a']);
    expect(errors).toEqual(['ServiceUnavailable']);
    expect(nodes).toEqual(['n1']);
    w.stop();
  });

  it('holds a kind’s watch events until released, in order', async () => {
    const inner = new MemoryCluster();
    const c = new FaultyCluster(inner);
    const seen: string[] = [];
    c.watch('Pod', inner.resourceVersion, (e) => seen.push(`${e.type} ${e.object.metadata.name}`));
    c.hold('Pod');
    await c.create(pod('a'));
    await c.delete({ kind: 'Pod', namespace: 'default', name: 'a' });
    await flush();
    expect(seen).toEqual([]);
    c.release('Pod');
    expect(seen).toEqual(['ADDED a', 'DELETED a']);
  });

  it('passes a watch scope (namespace and selectors) through to the cluster, never widening it', async () => {
    const c = new FaultyCluster(new MemoryCluster());
    const seen: string[] = [];
    c.watch('Pod', '0', (e) => seen.push(e.object.metadata.name), undefined, { labelSelector: 'app=web' });
    await c.create({ ...pod('web'), metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } });
    await c.create(pod('other'));
    await flush();
    expect(seen).toEqual(['web']);
  });
});
