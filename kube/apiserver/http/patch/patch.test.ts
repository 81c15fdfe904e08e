import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../../cluster/json.ts';
import { applyJsonPatch } from './json-patch.ts';
import { strategicMerge } from './strategic.ts';
import { BUILTIN_DEFINITIONS } from '../../describe/openapi/builtin.gen.ts';
import { strategiesFromOpenApi } from './strategies.ts';

const DOC = { definitions: BUILTIN_DEFINITIONS };
const strategiesOf = (group: string, kind: string) => strategiesFromOpenApi(DOC, { group, version: 'v1', kind })!;
const DEPLOYMENT = strategiesOf('apps', 'Deployment');
const SERVICE = strategiesOf('', 'Service');

const deployment = {
  metadata: {
    name: 'web',
    labels: { app: 'web' },
    finalizers: ['a'],
    ownerReferences: [{ uid: 'u1', name: 'x', kind: 'K', apiVersion: 'v1' }],
  },
  spec: {
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    template: {
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1',
            ports: [{ containerPort: 80, name: 'http' }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'side', image: 'busybox' },
        ],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
    },
  },
};

describe('strategic merge patch', () => {
  it('merges lists by their merge key, deep inside a pod template', () => {
    const out = strategicMerge(
      deployment,
      { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '3' }] }] } } } },
      DEPLOYMENT,
    ) as typeof deployment;
    const app = out.spec.template.spec.containers[0]!;
    expect(app.image).toBe('nginx:1');
    expect(app.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
    ]);
    expect(out.spec.template.spec.containers).toHaveLength(2);
  });

  it('obeys $patch delete and replace, $setElementOrder, $deleteFromPrimitiveList and $retainKeys', () => {
    const out = strategicMerge(
      deployment,
      {
        metadata: { labels: { app: null, tier: 'x' } },
        spec: {
          strategy: { $retainKeys: ['type'], type: 'Recreate' },
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }],
              containers: [{ name: 'app', ports: [{ containerPort: 80, $patch: 'delete' }] }],
              volumes: [{ $patch: 'replace' }, { name: 'w', emptyDir: {} }],
            },
          },
        },
      },
      DEPLOYMENT,
    ) as typeof deployment;
    expect(out.metadata.labels).toEqual({ tier: 'x' });
    expect(out.spec.strategy).toEqual({ type: 'Recreate' });
    expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(['side', 'app']);
    expect(out.spec.template.spec.containers[1]!.ports).toEqual([]);
    expect(out.spec.template.spec.volumes).toEqual([{ name: 'w', emptyDir: {} }]);
  });

  it('treats the directive keys kubectl writes with a slash', () => {
    const out = strategicMerge(
      deployment,
      {
        metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['b'] },
        spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }] } } },
      },
      DEPLOYMENT,
    ) as typeof deployment;
    expect(out.metadata.finalizers).toEqual(['b']);
    expect(out.spec.template.spec.containers.map((c) => c.name)).toEqual(['side', 'app']);
  });

  it('replaces lists without a strategy (a NetworkPolicy rule ports) and merges a Service spec.ports by port', () => {
    expect(strategiesOf('networking.k8s.io', 'NetworkPolicy')(['spec', 'ingress', 'ports'])).toBeUndefined();
    expect(SERVICE(['spec', 'ports'])).toEqual({ mergeKey: 'port' });
    expect(DEPLOYMENT(['spec', 'template', 'spec', 'volumes'])).toEqual({ mergeKey: 'name', retainKeys: true });
    expect(DEPLOYMENT(['metadata', 'finalizers'])).toEqual({ set: true });
    expect(DEPLOYMENT(['spec', 'strategy'])).toEqual({ retainKeys: true });
    expect(strategiesFromOpenApi(DOC, { group: 'kubeovn.io', version: 'v1', kind: 'Subnet' })).toBeUndefined();
    const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }] } };
    expect(strategicMerge(svc, { spec: { ports: [{ port: 443, targetPort: 8443 }] } }, SERVICE)).toEqual({
      spec: {
        ports: [
          { port: 80, targetPort: 8080 },
          { port: 443, targetPort: 8443 },
        ],
      },
    });
  });

  it('leaves its inputs untouched', () => {
    const before = structuredClone(deployment);
    strategicMerge(deployment, { metadata: { labels: { app: null } } }, DEPLOYMENT);
    expect(deployment).toEqual(before);
  });
});

describe('strategic merge without strategies is a JSON merge patch', () => {
  // Keys under which a Deployment's definition declares no strategy: lists there are replaced, as RFC 7386 does.
  const keyArb = fc.constantFrom('a', 'b', 'spec', 'data', 'rules', 'items');
  const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(keyArb, tie('value'), { maxKeys: 3 }),
    ),
  }));
  const patchArb = fc.dictionary(keyArb, fc.oneof(value, fc.constant(null)), { maxKeys: 4 });

  it('agrees with RFC 7386 on every object and patch', () => {
    fc.assert(
      fc.property(fc.dictionary(keyArb, value, { maxKeys: 4 }), patchArb, (doc, patch) => {
        expect(strategicMerge(doc, patch, DEPLOYMENT)).toEqual(mergePatch(doc, patch));
      }),
      { numRuns: 500 },
    );
  });
});

describe('JSON patch', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const r = applyJsonPatch({ a: { b: [1, 2] }, 'x/y': 1 }, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'remove', path: '/a/b/0' },
      { op: 'replace', path: '/x~1y', value: 2 },
      { op: 'copy', from: '/a/b', path: '/c' },
      { op: 'move', from: '/c', path: '/d' },
      { op: 'test', path: '/d', value: [2, 3] },
    ]);
    expect(r).toEqual({ ok: true, value: { a: { b: [2, 3] }, 'x/y': 2, d: [2, 3] } });
  });

  it('stops at the first operation that cannot apply, naming it', () => {
    const r = applyJsonPatch({ a: 1 }, [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'remove', path: '/nope' },
    ]);
    expect(r).toEqual({ ok: false, problem: { code: 'failed', index: 1, path: '/nope', message: 'no member "nope"' } });
    expect(applyJsonPatch({}, { op: 'add' })).toMatchObject({ ok: false, problem: { code: 'malformed' } });
  });
});
