import { describe, expect, it } from 'vitest';
import { classifyKind } from './objects/kinds.ts';
import {
  API_VERSION,
  apiVersionOf,
  DECODERS,
  kindDef,
  NAMESPACED,
  REGISTRY,
  SUPPORT_TABLES,
  WATCHED_KINDS,
} from './registry.ts';

describe('the registry of kinds', () => {
  it('gives each support table the kind and apiVersion of the entry that names it', () => {
    for (const [kind, d] of Object.entries(REGISTRY)) {
      if (!('support' in d)) continue;
      expect(d.support.kind).toBe(kind);
      expect(d.support.apiVersion).toBe(apiVersionOf(d));
    }
    expect(SUPPORT_TABLES.length).toBe(Object.keys(DECODERS).length);
  });

  it('is what the lists derived from it say', () => {
    expect(API_VERSION.NetworkPolicy).toBe('networking.k8s.io/v1');
    expect(API_VERSION.Subnet).toBe('kubeovn.io/v1');
    expect(API_VERSION.Pod).toBe('v1');
    expect(NAMESPACED.has('EndpointSlice')).toBe(true);
    expect(NAMESPACED.has('Subnet')).toBe(false);
    expect(WATCHED_KINDS).toContain('IP');
    expect(WATCHED_KINDS).not.toContain('Event');
    expect(WATCHED_KINDS).not.toContain('Deployment');
    // Every watched kind is decoded (its problems are reported on the object).
    for (const k of WATCHED_KINDS) expect(DECODERS[k]).toBeDefined();
    expect(kindDef('toString')).toBeUndefined();
  });

  it('decides which kinds a scenario file may hold: all but those only the controller writes', () => {
    expect(classifyKind({ apiVersion: 'apps/v1', kind: 'Deployment' }).handled).toBe(true);
    expect(classifyKind({ apiVersion: 'kubeovn.io/v1', kind: 'IPPool' }).handled).toBe(true);
    expect(classifyKind({ apiVersion: 'v1', kind: 'Event' }).handled).toBe(false);
  });
});
