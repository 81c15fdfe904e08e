import { describe, expect, it } from 'vitest';
import type { KubeObject, ObjectMeta } from '../cluster/types.ts';
import { deletionChanged, labelsChanged, specChanged, specLabelsOrDeletion } from './changes.ts';

const obj = (meta: Partial<ObjectMeta>, spec: unknown = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name: 't', ...meta },
  spec,
});

describe('change predicates', () => {
  it('judge the spec by generation where both versions carry one, whatever else changed', () => {
    const a = obj({ generation: 1, resourceVersion: '5' });
    expect(specChanged(obj({ generation: 1, resourceVersion: '9' }), a)).toBe(false);
    expect(specChanged(obj({ generation: 2, resourceVersion: '9' }), a)).toBe(true);
    expect(specChanged(a, undefined)).toBe(true);
  });

  it('fall back to resourceVersion without a generation', () => {
    const a = obj({ resourceVersion: '5' });
    expect(specChanged(obj({ resourceVersion: '5' }), a)).toBe(false);
    expect(specChanged(obj({ resourceVersion: '6' }), a)).toBe(true);
    expect(specChanged(obj({}), obj({}))).toBe(true);
  });

  it('compare labels, deletion and finalizers field by field', () => {
    const a = obj({ labels: { app: 'web', tier: 'a' }, finalizers: ['f1'] });
    expect(labelsChanged(obj({ labels: { tier: 'a', app: 'web' } }), a)).toBe(false);
    expect(labelsChanged(obj({ labels: { app: 'web' } }), a)).toBe(true);
    expect(labelsChanged(obj({ labels: { app: 'web', tier: 'b' } }), a)).toBe(true);
    expect(labelsChanged(obj({}), obj({ labels: {} }))).toBe(false);
    expect(deletionChanged(obj({ labels: {}, finalizers: ['f1'] }), a)).toBe(false);
    expect(deletionChanged(obj({ finalizers: [] }), a)).toBe(true);
    expect(deletionChanged(obj({ finalizers: ['f1'], deletionTimestamp: 'now' }), a)).toBe(true);
  });

  it("ignore what an object's own handler does not read: status and annotations", () => {
    const a = { ...obj({ generation: 3, resourceVersion: '5', annotations: { x: '1' } }), status: { ok: false } };
    const b = { ...obj({ generation: 3, resourceVersion: '6', annotations: { x: '2' } }), status: { ok: true } };
    expect(specLabelsOrDeletion(b, a)).toBe(false);
  });
});
