import { describe, expect, it } from 'vitest';
import { MemoryCluster } from './memory.ts';
import { ClusterError, type KubeObject, type WatchEvent } from './types.ts';

const pod = (name: string, extra: Partial<KubeObject> & { namespace?: string } = {}): KubeObject => {
  const { namespace, ...rest } = extra;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    spec: { nodeName: 'n1' },
    ...rest,
  };
};
const subnet = (name: string, cidr = '10.0.0.0/24'): KubeObject => ({
  apiVersion: 'kubeovn.io/v1',
  kind: 'Subnet',
  metadata: { name },
  spec: { cidrBlock: cidr },
});

/** Lets queued microtasks (watch deliveries) run. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

const reasonOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ClusterError) return err.reason;
    throw err;
  }
  return 'resolved';
};

const record = (c: MemoryCluster, kind: string, rv: string) => {
  const events: string[] = [];
  const errors: ClusterError[] = [];
  const w = c.watch(
    kind,
    rv,
    (e: WatchEvent) => events.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`),
    (e) => errors.push(e),
  );
  return { events, errors, w };
};

describe('MemoryCluster: create, get, list', () => {
  it('fills the system fields and shares one resourceVersion counter across kinds', async () => {
    let t = Date.UTC(2024, 0, 1);
    const c = new MemoryCluster({ now: () => t });
    const p = await c.create({ kind: 'Pod', metadata: { name: 'a', uid: 'mine' }, spec: {} } as unknown as KubeObject);
    t += 1000;
    const s = await c.create(subnet('s1'));
    const p2 = await c.create(pod('b'));
    expect(p.metadata).toMatchObject({
      name: 'a',
      namespace: 'default',
      uid: 'uid-1',
      resourceVersion: '1',
      generation: 1,
      creationTimestamp: '2024-01-01T00:00:00Z',
    });
    expect(p.apiVersion).toBe('v1');
    expect(s.metadata).toMatchObject({
      uid: 'uid-2',
      resourceVersion: '2',
      creationTimestamp: '2024-01-01T00:00:01Z',
    });
    expect(p2.metadata.resourceVersion).toBe('3');
    expect(Number(p.metadata.resourceVersion)).toBeLessThan(Number(s.metadata.resourceVersion));
    expect(c.resourceVersion).toBe('3');
    expect(await c.get({ kind: 'Pod', name: 'a' })).toBe(p);
    expect(await c.get({ kind: 'Pod', namespace: 'other', name: 'a' })).toBeUndefined();
  });

  it('uses an injected uid generator', async () => {
    let n = 100;
    const c = new MemoryCluster({ uid: () => `u${n++}` });
    expect((await c.create(subnet('s'))).metadata.uid).toBe('u100');
  });

  it('rejects taken names, missing names and namespaces on cluster-scoped kinds', async () => {
    const c = new MemoryCluster();
    await c.create(pod('a', { namespace: 'ns' }));
    await expect(c.create(pod('a', { namespace: 'ns' }))).rejects.toThrow(/Pod ns\/a already exists/);
    expect(await reasonOf(c.create(pod('a', { namespace: 'ns' })))).toBe('AlreadyExists');
    const noName = { apiVersion: 'v1', kind: 'Pod', metadata: {} } as unknown as KubeObject;
    await expect(c.create(noName)).rejects.toThrow(/metadata\.name/);
    expect(await reasonOf(c.create(noName))).toBe('Invalid');
    const namespaced = { ...subnet('s'), metadata: { name: 's', namespace: 'x' } };
    await expect(c.create(namespaced)).rejects.toThrow(/Subnet x\/s: metadata\.namespace/);
    expect(await reasonOf(c.create(namespaced))).toBe('Invalid');
    // Unknown kinds are stored as given.
    const crd = await c.create({
      apiVersion: 'example.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'n' },
    });
    expect(crd.metadata.namespace).toBe('n');
    expect(c.stats().create).toBe(2);
  });

  it('lists sorted by namespace then name, with a namespace filter and the current version', async () => {
    const c = new MemoryCluster();
    for (const [ns, n] of [
      ['b', 'x'],
      ['a', 'z'],
      ['b', 'a'],
      ['a', 'y'],
    ] as const) {
      await c.create(pod(n, { namespace: ns }));
    }
    await c.create(subnet('s'));
    const all = await c.list('Pod');
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['a/y', 'a/z', 'b/a', 'b/x']);
    expect(all.resourceVersion).toBe('5');
    expect((await c.list('Pod', { namespace: 'b' })).items.map((o) => o.metadata.name)).toEqual(['a', 'x']);
    expect((await c.list('Node')).items).toEqual([]);
  });

  it('stores frozen copies: neither the input nor the result can change the store', async () => {
    const c = new MemoryCluster();
    const input = pod('a', { metadata: { name: 'a', labels: { app: 'web' } } });
    const created = await c.create(input);
    (input.metadata.labels as Record<string, string>)['app'] = 'changed';
    expect(Object.isFrozen(created.metadata.labels)).toBe(true);
    expect(() => {
      (created.metadata.labels as Record<string, string>)['app'] = 'x';
    }).toThrow(TypeError);
    expect((await c.get({ kind: 'Pod', name: 'a' }))?.metadata.labels).toEqual({ app: 'web' });
  });
});

describe('MemoryCluster: update, status, patch', () => {
  it('refuses a stale resourceVersion with Conflict and accepts the current one or none', async () => {
    const c = new MemoryCluster();
    const v1 = await c.create(pod('a'));
    const v2 = await c.update({ ...v1, metadata: { ...v1.metadata, labels: { a: '1' } } });
    await expect(c.update({ ...v1, metadata: { ...v1.metadata, labels: { a: '2' } } })).rejects.toThrow(
      /Pod default\/a: metadata\.resourceVersion 1 is not the current 2/,
    );
    expect(await reasonOf(c.update({ ...v1, metadata: { ...v1.metadata, labels: { a: '2' } } }))).toBe('Conflict');
    const { resourceVersion: _, ...meta } = v1.metadata;
    const v3 = await c.update({ ...v1, metadata: { ...meta, labels: { a: '3' } } });
    expect(v3.metadata.labels).toEqual({ a: '3' });
    expect(v3.metadata.resourceVersion).toBe('3');
    expect(v2.metadata.uid).toBe(v3.metadata.uid);
    expect(await reasonOf(c.update(pod('missing')))).toBe('NotFound');
    expect(await reasonOf(c.updateStatus(pod('missing')))).toBe('NotFound');
    expect(await reasonOf(c.patch({ kind: 'Pod', name: 'missing' }, {}))).toBe('NotFound');
    expect(await reasonOf(c.delete({ kind: 'Pod', name: 'missing' }))).toBe('NotFound');
  });

  it('update keeps the stored status; updateStatus changes status only', async () => {
    const c = new MemoryCluster();
    const v1 = await c.create(pod('a', { status: { phase: 'Pending' } }));
    const v2 = await c.update({ ...v1, spec: { nodeName: 'n2' }, status: { phase: 'Hacked' } });
    expect(v2.status).toEqual({ phase: 'Pending' });
    expect(v2.spec).toEqual({ nodeName: 'n2' });
    const v3 = await c.updateStatus({ ...v2, spec: { nodeName: 'n3' }, status: { phase: 'Running' } });
    expect(v3.status).toEqual({ phase: 'Running' });
    expect(v3.spec).toEqual({ nodeName: 'n2' });
    expect(v3.metadata.generation).toBe(2);
    expect(await reasonOf(c.updateStatus({ ...v2, status: { phase: 'Failed' } }))).toBe('Conflict');
  });

  it('bumps generation on spec changes only, and a no-op update writes nothing', async () => {
    const c = new MemoryCluster();
    const v1 = await c.create(subnet('s'));
    const w = record(c, 'Subnet', c.resourceVersion);
    const labelled = await c.update({ ...v1, metadata: { ...v1.metadata, labels: { x: 'y' } } });
    expect(labelled.metadata.generation).toBe(1);
    const statused = await c.updateStatus({ ...labelled, status: { v4availableIPs: 253 } });
    expect(statused.metadata.generation).toBe(1);
    const specced = await c.update({ ...statused, spec: { cidrBlock: '10.1.0.0/24' } });
    expect(specced.metadata.generation).toBe(2);
    const before = c.stats();
    const same = await c.update({ ...specced });
    const samePatch = await c.patch({ kind: 'Subnet', name: 's' }, { spec: { cidrBlock: '10.1.0.0/24' } });
    expect(same).toBe(specced);
    expect(samePatch).toBe(specced);
    expect(c.resourceVersion).toBe(specced.metadata.resourceVersion);
    expect(c.stats()).toMatchObject({ writes: before.writes, noop: before.noop + 2, update: before.update + 1 });
    await flush();
    expect(w.events).toEqual(['MODIFIED s 2', 'MODIFIED s 3', 'MODIFIED s 4']);
  });

  it('merge patch: null removes an annotation, arrays replace, status untouched', async () => {
    const c = new MemoryCluster();
    await c.create(
      pod('a', {
        metadata: { name: 'a', annotations: { keep: '1', drop: '2' }, finalizers: ['x', 'y'] },
        status: { phase: 'Running' },
      }),
    );
    const p = await c.patch(
      { kind: 'Pod', name: 'a' },
      { metadata: { annotations: { drop: null, add: '3' }, finalizers: ['z'] }, status: { phase: 'Hacked' } },
    );
    expect(p.metadata.annotations).toEqual({ keep: '1', add: '3' });
    expect(p.metadata.finalizers).toEqual(['z']);
    expect(p.status).toEqual({ phase: 'Running' });
    expect(p.metadata.generation).toBe(1);
  });

  it('status patch touches status only', async () => {
    const c = new MemoryCluster();
    await c.create(pod('a', { status: { phase: 'Pending', podIP: '10.0.0.2' } }));
    const p = await c.patch(
      { kind: 'Pod', name: 'a' },
      { spec: { nodeName: 'other' }, metadata: { labels: { a: 'b' } }, status: { phase: 'Running', podIP: null } },
      { subresource: 'status' },
    );
    expect(p.status).toEqual({ phase: 'Running' });
    expect(p.spec).toEqual({ nodeName: 'n1' });
    expect(p.metadata.labels).toBeUndefined();
    expect(c.stats().patch).toBe(1);
  });

  it('a patch cannot change kind, name, namespace or uid, and honours a resourceVersion', async () => {
    const c = new MemoryCluster();
    const v1 = await c.create(pod('a', { namespace: 'ns' }));
    const ref = { kind: 'Pod', namespace: 'ns', name: 'a' };
    await expect(c.patch(ref, { metadata: { name: 'b' } })).rejects.toThrow(/metadata\.name is immutable/);
    await expect(c.patch(ref, { metadata: { namespace: null } })).rejects.toThrow(/metadata\.namespace is immutable/);
    await expect(c.patch(ref, { kind: 'Service' })).rejects.toThrow(/kind is immutable/);
    expect(await reasonOf(c.patch(ref, { metadata: { uid: 'other' } }))).toBe('Conflict');
    expect(await reasonOf(c.patch(ref, { metadata: { resourceVersion: '0' } }))).toBe('Conflict');
    expect(await reasonOf(c.patch(ref, []))).toBe('Invalid');
    expect(await c.get(ref)).toBe(v1);
    const ok = await c.patch(ref, { metadata: { resourceVersion: '1', labels: { l: 'v' } } });
    expect(ok.metadata).toMatchObject({ uid: v1.metadata.uid, resourceVersion: '2', labels: { l: 'v' } });
  });
});

describe('MemoryCluster: delete and finalizers', () => {
  it('deletes at once without finalizers', async () => {
    const c = new MemoryCluster();
    await c.create(pod('a'));
    const w = record(c, 'Pod', c.resourceVersion);
    await c.delete({ kind: 'Pod', name: 'a' });
    expect(await c.get({ kind: 'Pod', name: 'a' })).toBeUndefined();
    await flush();
    expect(w.events).toEqual(['DELETED a 2']);
  });

  it('holds deletion until the last finalizer goes', async () => {
    const t = Date.UTC(2024, 5, 1);
    const c = new MemoryCluster({ now: () => t });
    await c.create(subnet('s'));
    const fin = await c.patch({ kind: 'Subnet', name: 's' }, { metadata: { finalizers: ['kovn.io/a', 'kovn.io/b'] } });
    const w = record(c, 'Subnet', c.resourceVersion);
    await c.delete({ kind: 'Subnet', name: 's' });
    const deleting = await c.get({ kind: 'Subnet', name: 's' });
    expect(deleting?.metadata.deletionTimestamp).toBe('2024-06-01T00:00:00Z');
    // A second delete changes nothing.
    await c.delete({ kind: 'Subnet', name: 's' });
    expect(await c.get({ kind: 'Subnet', name: 's' })).toBe(deleting);
    // No new finalizers while deleting; the deletion timestamp cannot be removed.
    expect(await reasonOf(c.patch({ kind: 'Subnet', name: 's' }, { metadata: { finalizers: ['x'] } }))).toBe('Invalid');
    const one = await c.update({ ...deleting!, metadata: { ...deleting!.metadata, finalizers: ['kovn.io/b'] } });
    expect(one.metadata.deletionTimestamp).toBe('2024-06-01T00:00:00Z');
    await c.patch({ kind: 'Subnet', name: 's' }, { metadata: { finalizers: null } });
    expect(await c.get({ kind: 'Subnet', name: 's' })).toBeUndefined();
    await flush();
    expect(w.events).toEqual(['MODIFIED s 3', 'MODIFIED s 4', 'DELETED s 5']);
    expect(fin.metadata.finalizers).toEqual(['kovn.io/a', 'kovn.io/b']);
  });
});

describe('MemoryCluster: watch', () => {
  it('never delivers inside the write call, and delivers in order afterwards', async () => {
    const c = new MemoryCluster();
    const w = record(c, 'Pod', c.resourceVersion);
    const p = c.create(pod('a'));
    expect(w.events).toEqual([]);
    await p;
    await c.create(subnet('s'));
    await c.patch({ kind: 'Pod', name: 'a' }, { metadata: { labels: { a: 'b' } } });
    await flush();
    expect(w.events).toEqual(['ADDED a 1', 'MODIFIED a 3']);
  });

  it('delivers nothing after stop, even what was already queued', async () => {
    const c = new MemoryCluster();
    const w = record(c, 'Pod', '0');
    const created = c.create(pod('a'));
    // The event is queued for delivery; stop comes first.
    w.w.stop();
    await created;
    await c.create(pod('b'));
    await flush();
    expect(w.events).toEqual([]);
    // A handler stopping its own watch gets nothing more either.
    const seen: string[] = [];
    const self = c.watch('Pod', '0', (e) => {
      seen.push(e.object.metadata.name);
      self.stop();
    });
    await flush();
    expect(seen).toEqual(['a']);
  });

  it('replays from a retained version and answers Gone past the history', async () => {
    const c = new MemoryCluster({ historyLimit: 3 });
    for (const n of ['a', 'b', 'c', 'd', 'e']) await c.create(pod(n));
    // Versions 3, 4, 5 are retained: watching from 2 replays them.
    const replay = record(c, 'Pod', '2');
    const gone = record(c, 'Pod', '1');
    await flush();
    expect(replay.events).toEqual(['ADDED c 3', 'ADDED d 4', 'ADDED e 5']);
    expect(gone.events).toEqual([]);
    expect(gone.errors.map((e) => e.reason)).toEqual(['Gone']);
    expect(gone.errors[0]?.message).toMatch(/too old/);
    const later = record(c, 'Pod', c.resourceVersion);
    await c.delete({ kind: 'Pod', name: 'a' });
    await flush();
    expect(later.events).toEqual(['DELETED a 6']);
    expect(replay.events.at(-1)).toBe('DELETED a 6');
  });

  it('keeps exactly the last historyLimit events over many writes', async () => {
    const c = new MemoryCluster({ historyLimit: 10 });
    await c.create(pod('a'));
    for (let i = 0; i < 3000; i++)
      await c.patch({ kind: 'Pod', name: 'a' }, { metadata: { labels: { i: String(i) } } });
    expect(c.resourceVersion).toBe('3001');
    const edge = record(c, 'Pod', '2991');
    const tooOld = record(c, 'Pod', '2990');
    await flush();
    expect(edge.events).toHaveLength(10);
    expect(edge.events[0]).toBe('MODIFIED a 2992');
    expect(tooOld.errors.map((e) => e.reason)).toEqual(['Gone']);
  });

  it('replays only the watched kind, and a bad version is Invalid', async () => {
    const c = new MemoryCluster();
    await c.create(subnet('s'));
    await c.create(pod('a'));
    const w = record(c, 'Subnet', '0');
    const bad = record(c, 'Subnet', 'soon');
    await flush();
    expect(w.events).toEqual(['ADDED s 1']);
    expect(bad.errors.map((e) => e.reason)).toEqual(['Invalid']);
  });
});

describe('MemoryCluster: events', () => {
  it('records v1 Events and aggregates identical ones', async () => {
    let t = Date.UTC(2024, 0, 1);
    const c = new MemoryCluster({ now: () => t });
    const involved = { kind: 'Pod', namespace: 'prod', name: 'web-0', uid: 'u1' };
    await c.recordEvent({ involved, type: 'Warning', reason: 'AcquireAddressFailed', message: 'no address' });
    t += 5000;
    await c.recordEvent({ involved, type: 'Warning', reason: 'AcquireAddressFailed', message: 'no address' });
    await c.recordEvent({ involved, type: 'Warning', reason: 'AcquireAddressFailed', message: 'other' });
    await c.recordEvent({ involved: { kind: 'Subnet', name: 's' }, type: 'Normal', reason: 'Ok', message: 'm' });
    const pods = c.events({ kind: 'Pod', name: 'web-0' });
    expect(pods).toHaveLength(2);
    expect(pods[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-0.1', namespace: 'prod' },
      involvedObject: involved,
      type: 'Warning',
      reason: 'AcquireAddressFailed',
      message: 'no address',
      source: { component: 'kube-ovn-controller' },
      count: 2,
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:05Z',
    });
    expect(pods[1]).toMatchObject({ count: 1, message: 'other', metadata: { name: 'web-0.2' } });
    const subnetEvents = c.events({ kind: 'Subnet', name: 's' });
    expect(subnetEvents.map((e) => e.metadata.namespace)).toEqual(['default']);
    expect(c.events()).toHaveLength(3);
    expect((await c.list('Event', { namespace: 'prod' })).items).toHaveLength(2);
    expect(c.stats()).toMatchObject({ recordEvent: 4, create: 0, writes: 4 });
    // Once its Event is gone, the same event starts a new one.
    await c.delete({ kind: 'Event', namespace: 'prod', name: 'web-0.1' });
    await c.recordEvent({ involved, type: 'Warning', reason: 'AcquireAddressFailed', message: 'no address' });
    expect(c.events({ kind: 'Pod', name: 'web-0' }).map((e) => `${e.metadata.name} ${e.count}`)).toEqual([
      'web-0.2 1',
      'web-0.4 1',
    ]);
  });
});
