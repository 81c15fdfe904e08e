import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../cluster/memory.ts';
import { createCatalog } from './catalog.ts';
import { createApiDescription } from './description.ts';
import { discover } from './discovery.ts';
import { subnetCrd, widgetCrd } from './testing/crds.ts';

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

interface ResourceEntry {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}
const resources = (body: unknown): ResourceEntry[] => (body as { resources: ResourceEntry[] }).resources;

describe('catalog', () => {
  it('serves every registry kind, with short names, categories and status subresources', () => {
    const c = createCatalog();
    const pods = c.byPath('', 'v1', 'pods');
    expect(pods).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'] });
    expect(pods?.statusSubresource).toBe(true);
    expect(pods?.strategicMerge).toBe(true);
    expect(c.byKind('networking.k8s.io/v1', 'NetworkPolicy')?.plural).toBe('networkpolicies');
    expect(c.byKind('coordination.k8s.io/v1', 'Lease')?.namespaced).toBe(true);
    expect(c.byPath('kubeovn.io', 'v1', 'subnets')).toMatchObject({ origin: 'builtin', strategicMerge: false });
    expect(c.byPath('apps', 'v1', 'pods')).toBeUndefined();
  });

  it('lets a kubeovn.io CRD replace the built-in entry, and brings it back when the CRD goes', () => {
    const c = createCatalog();
    let changes = 0;
    c.onChange(() => changes++);
    expect(c.registerCrd(subnetCrd())).toEqual([]);
    const s = c.byKind('kubeovn.io/v1', 'Subnet');
    expect(s?.origin).toEqual({ crd: 'subnets.kubeovn.io' });
    expect(s?.printerColumns?.map((p) => p.name)).toEqual(['Provider', 'Protocol', 'CIDR', 'V4avail', 'Default']);
    expect(c.all().filter((r) => r.kind === 'Subnet')).toHaveLength(1);
    c.unregisterCrd('subnets.kubeovn.io');
    expect(c.byKind('kubeovn.io/v1', 'Subnet')?.origin).toBe('builtin');
    expect(changes).toBe(2);
  });

  it('refuses a CRD naming what is wrong with it, and one taking a Kubernetes resource', () => {
    const c = createCatalog();
    const bad = { ...subnetCrd(), metadata: { name: 'subnet.kubeovn.io' } };
    expect(c.registerCrd(bad).map((x) => x.field)).toEqual(['metadata.name']);
    const noSchema = widgetCrd();
    const spec = noSchema.spec as { versions: { schema?: unknown }[]; group: string };
    delete spec.versions[1]!.schema;
    spec.group = 'example';
    expect(c.registerCrd(noSchema).map((x) => x.field)).toEqual([
      'spec.group',
      'metadata.name',
      'spec.versions[1].schema.openAPIV3Schema',
    ]);
    const netpol = {
      ...widgetCrd(),
      metadata: { name: 'networkpolicies.networking.k8s.io' },
      spec: {
        ...(widgetCrd().spec as object),
        group: 'networking.k8s.io',
        names: { plural: 'networkpolicies', kind: 'NetworkPolicy' },
      },
    };
    expect(c.registerCrd(netpol)).toMatchObject([{ field: 'spec.names', reason: 'FieldValueInvalid' }]);
    expect(c.byKind('networking.k8s.io/v1', 'NetworkPolicy')?.origin).toBe('builtin');
  });
});

describe('discovery', () => {
  it('answers /api, /api/v1 with status subresources, and /version as a 1.20 server', () => {
    const c = createCatalog();
    expect(discover(c, '/api')?.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const core = resources(discover(c, '/api/v1')?.body);
    expect(core.find((r) => r.name === 'pods')).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(core.find((r) => r.name === 'pods/status')?.verbs).toEqual(['get', 'patch', 'update']);
    expect(core.find((r) => r.name === 'nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
    expect(discover(c, '/version')?.body).toMatchObject({ major: '1', minor: '20' });
    expect(discover(c, '/api/v2')).toBeUndefined();
    expect(discover(c, '/api/v1/pods')).toBeUndefined();
  });

  it('lists groups core-first with their preferred version, and a CRD group once registered', () => {
    const c = createCatalog();
    const names = (): string[] =>
      (discover(c, '/apis')!.body as { groups: { name: string }[] }).groups.map((g) => g.name);
    expect(names()).not.toContain('example.com');
    expect(names()).toEqual(expect.arrayContaining(['apps', 'rbac.authorization.k8s.io', 'kubeovn.io']));
    c.registerCrd(widgetCrd());
    expect(names()).toContain('example.com');
    expect(discover(c, '/apis/example.com')?.body).toMatchObject({
      kind: 'APIGroup',
      preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
      versions: [{ version: 'v1' }, { version: 'v1beta1' }],
    });
    const widgets = resources(discover(c, '/apis/example.com/v1/')?.body);
    expect(widgets).toEqual([
      expect.objectContaining({ name: 'widgets', namespaced: true, shortNames: ['wd'], categories: ['all'] }),
    ]);
    expect(discover(c, '/apis/nothing.io')).toBeUndefined();
  });
});

describe('createApiDescription', () => {
  it('follows the CustomResourceDefinitions of the cluster: created, then deleted', async () => {
    const cluster = new MemoryCluster();
    const d = await createApiDescription(cluster);
    expect(d.catalog.byPath('example.com', 'v1', 'widgets')).toBeUndefined();
    await cluster.create(widgetCrd());
    await flush();
    expect(d.catalog.byPath('example.com', 'v1', 'widgets')?.kind).toBe('Widget');
    await cluster.delete({ kind: 'CustomResourceDefinition', name: 'widgets.example.com' });
    await flush();
    expect(d.catalog.byPath('example.com', 'v1', 'widgets')).toBeUndefined();
    d.close();
  });

  it("writes a CRD's status as the API server does: established, or not with the reason", async () => {
    const cluster = new MemoryCluster();
    const d = await createApiDescription(cluster, { now: () => Date.parse('2026-01-01T00:00:00Z') });
    let changes = 0;
    d.catalog.onChange(() => changes++);
    await cluster.create(widgetCrd());
    for (let i = 0; i < 5; i++) await flush();
    const crd = await cluster.get({ kind: 'CustomResourceDefinition', name: 'widgets.example.com' });
    expect(crd?.status).toEqual({
      conditions: [
        expect.objectContaining({ type: 'NamesAccepted', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }),
        expect.objectContaining({ type: 'Established', status: 'True', reason: 'InitialNamesAccepted' }),
      ],
      acceptedNames: (widgetCrd().spec as { names: unknown }).names,
      storedVersions: ['v1'],
    });
    expect(changes).toBe(1);
    // A CRD stored without validation (a scenario file) that the catalog refuses is not established.
    await cluster.create({ ...widgetCrd(), metadata: { name: 'gadgets.example.com' } });
    for (let i = 0; i < 5; i++) await flush();
    const bad = await cluster.get({ kind: 'CustomResourceDefinition', name: 'gadgets.example.com' });
    expect((bad!.status as { conditions: unknown[] }).conditions[1]).toMatchObject({
      type: 'Established',
      status: 'False',
      message: expect.stringContaining('metadata.name'),
    });
    expect((bad!.status as { acceptedNames: unknown }).acceptedNames).toEqual({ plural: '', kind: '' });
    expect(d.refusedCrds().has('gadgets.example.com')).toBe(true);
    expect(d.statusErrors().size).toBe(0);
    d.close();
  });

  it('answers /openapi/v2 in protobuf (what kubectl asks for, and by default) or in JSON when asked', async () => {
    const d = await createApiDescription(new MemoryCluster());
    const pb = d.discovery('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(pb?.contentType).toBe('application/octet-stream');
    expect(pb?.body).toBeInstanceOf(Uint8Array);
    expect(d.discovery('/openapi/v2')?.body).toBeInstanceOf(Uint8Array);
    const json = d.discovery('/openapi/v2', 'application/json');
    expect(json).toMatchObject({ contentType: 'application/json', body: { swagger: '2.0' } });
    d.close();
  });

  it('validates a CustomResourceDefinition as the catalog would refuse it', async () => {
    const d = await createApiDescription(new MemoryCluster());
    const crdResource = d.catalog.byKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!;
    const bad = { ...widgetCrd(), metadata: { name: 'widget.example.com' } };
    expect(d.validate(crdResource, bad).map((c) => c.field)).toEqual(['metadata.name']);
    expect(d.validate(crdResource, widgetCrd())).toEqual([]);
    d.close();
  });
});
