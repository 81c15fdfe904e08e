import { describe, expect, it } from 'vitest';
import { MemoryCluster } from './memory.ts';
import { compileSelectors, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { ClusterError, type KubeObject, type WatchEvent } from './types.ts';

const pod = (name: string, labels: Record<string, string>, nodeName?: string, phase?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels },
  spec: nodeName !== undefined ? { nodeName } : {},
  ...(phase !== undefined ? { status: { phase } } : {}),
});

const matches = (sel: string, o: KubeObject) => {
  const r = parseLabelSelector(sel);
  if (!r.ok) throw new Error(r.problem.message);
  return r.filter === undefined || r.filter(o);
};

describe('label selectors', () => {
  const web = pod('w', { app: 'web', tier: 'front', rank: '3' });
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (db, web)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['app=web,tier in (front,back),!legacy', true],
    ['app=web,tier=back', false],
    ['rank>2', true],
    ['rank<3', false],
    ['', true],
  ])('%s → %s', (sel, want) => {
    expect(matches(sel, web)).toBe(want);
  });

  it('refuses what is not a selector', () => {
    for (const bad of ['app=we b', 'a b c', 'app in (x', '-bad=1', 'rank>x'])
      expect(parseLabelSelector(bad)).toMatchObject({ ok: false, problem: { path: 'labelSelector' } });
  });
});

describe('field selectors', () => {
  it('selects by the fields the server supports, absent fields being empty', () => {
    const f = parseFieldSelector('Pod', 'spec.nodeName=n1,status.phase!=Failed');
    if (!f.ok || !f.filter) throw new Error('parsed');
    expect(f.filter(pod('a', {}, 'n1', 'Running'))).toBe(true);
    expect(f.filter(pod('b', {}, 'n1', 'Failed'))).toBe(false);
    expect(f.filter(pod('c', {}, 'n2'))).toBe(false);
    const unscheduled = parseFieldSelector('Pod', 'spec.nodeName=');
    expect(unscheduled.ok && unscheduled.filter?.(pod('d', {}))).toBe(true);
    const escaped = parseFieldSelector('Pod', 'metadata.name=a\\,b\\=c,spec.nodeName!=n9');
    expect(escaped.ok && escaped.filter?.({ ...pod('x', {}), metadata: { name: 'a,b=c' } })).toBe(true);
  });

  it('refuses a field the kind cannot be selected by, with 400-style text', () => {
    expect(parseFieldSelector('Subnet', 'spec.cidrBlock=10.0.0.0/24')).toMatchObject({
      ok: false,
      problem: { code: 'UnsupportedField', path: 'fieldSelector' },
    });
    expect(parseFieldSelector('Subnet', 'metadata.name=join').ok).toBe(true);
    expect(parseFieldSelector('Pod', 'nonsense')).toMatchObject({
      ok: false,
      problem: { code: 'InvalidFieldSelector' },
    });
    expect(compileSelectors('Pod', {}).ok && compileSelectors('Pod', {})).toMatchObject({ filter: undefined });
  });
});

describe('the in-memory cluster applies selectors', () => {
  const flush = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('lists only what matches, and refuses a selector it cannot apply', async () => {
    const c = new MemoryCluster();
    await c.create(pod('a', { app: 'web' }, 'n1'));
    await c.create(pod('b', { app: 'db' }, 'n2'));
    const names = async (o: object) => (await c.list('Pod', o)).items.map((p) => p.metadata.name);
    expect(await names({ labelSelector: 'app=web' })).toEqual(['a']);
    expect(await names({ fieldSelector: 'spec.nodeName=n2' })).toEqual(['b']);
    expect(await names({ namespace: 'other' })).toEqual([]);
    await expect(c.list('Pod', { fieldSelector: 'spec.bogus=1' })).rejects.toMatchObject({
      reason: 'Invalid',
      field: 'fieldSelector',
    });
    expect(() => c.watch('Pod', '0', () => {}, undefined, { labelSelector: 'a b' })).toThrow(ClusterError);
  });

  it('shows an object entering its scope as ADDED and one leaving it as DELETED, replayed alike', async () => {
    const c = new MemoryCluster();
    const from = c.resourceVersion;
    const created = await c.create(pod('a', { app: 'db' }));
    await c.patch({ kind: 'Pod', namespace: 'default', name: 'a' }, { metadata: { labels: { app: 'web' } } });
    await c.patch({ kind: 'Pod', namespace: 'default', name: 'a' }, { metadata: { labels: { app: 'web', x: '1' } } });
    await c.patch({ kind: 'Pod', namespace: 'default', name: 'a' }, { metadata: { labels: { app: 'db' } } });
    await c.delete({ kind: 'Pod', namespace: 'default', name: 'a' });
    expect(created.metadata.labels).toEqual({ app: 'db' });
    const seen: string[] = [];
    const record = (e: WatchEvent) => seen.push(`${e.type} ${e.object.metadata.labels?.['app']}`);
    // Replayed from history...
    const replay = c.watch('Pod', from, record, undefined, { labelSelector: 'app=web' });
    await flush();
    replay.stop();
    expect(seen).toEqual(['ADDED web', 'MODIFIED web', 'DELETED db']);
    // ...and live.
    seen.length = 0;
    const live = c.resourceVersion;
    c.watch('Pod', live, record, undefined, { labelSelector: 'app=web', namespace: 'default' });
    await c.create(pod('b', { app: 'web' }));
    await c.patch({ kind: 'Pod', namespace: 'default', name: 'b' }, { metadata: { labels: { app: 'db' } } });
    await c.create({
      ...pod('c', { app: 'web' }),
      metadata: { name: 'c', namespace: 'other', labels: { app: 'web' } },
    });
    await flush();
    expect(seen).toEqual(['ADDED web', 'DELETED db']);
  });
});
