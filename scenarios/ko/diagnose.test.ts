import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberView, raftHealth, requireOvn, runTool, startCluster } from '../../backends/ovn/control-plane/index.ts';
import { annotationKey } from '../../kube/annotations.ts';
import type { KubeObject } from '../../kube/cluster/types.ts';
import { realClock } from '../../kube/runtime/clock.ts';
import { diagnose } from './diagnose.ts';
import { type LiveCluster, startLive } from './testing/live.ts';

describe.skipIf(!requireOvn('kovn ko diagnose'))('diagnose a live NB against the cluster', () => {
  let live: LiveCluster;
  beforeAll(async () => {
    live = await startLive('scenarios/quickstart.yaml', { northd: false });
  });
  afterAll(async () => {
    await live?.stop();
  });

  it('finds nothing where the controller left everything as it wrote it', async () => {
    const d = await diagnose({ cluster: live.cluster, nb: await live.backend.read(), clock: realClock });
    expect(d.rows).toEqual([]);
    expect(d.annotations).toEqual([]);
    expect(d.checked.rows).toBeGreaterThan(20);
  });

  it('finds exactly a row deleted by hand and an annotation changed by hand', async () => {
    await runTool('ovn-nbctl', [`--db=${live.cp.nb.remote}`, 'lsp-del', 'debug.default']);
    const db = await live.cluster.get({ kind: 'Pod', namespace: 'data', name: 'db-0' });
    const IP_ADDRESS = annotationKey('ovn', 'ip_address');
    const was = db?.metadata.annotations?.[IP_ADDRESS];
    expect(was).toMatch(/^10\.17\.0\.\d+$/);
    await live.cluster.patch(
      { kind: 'Pod', namespace: 'data', name: 'db-0' },
      { metadata: { annotations: { [IP_ADDRESS]: '10.17.0.99' } } },
    );
    const d = await diagnose({ cluster: live.cluster, nb: await live.backend.read(), clock: realClock });
    // The port group memberships lsp-del took with the port belong to the missing port, not to findings of their own.
    expect(d.rows).toEqual([
      {
        code: 'missing-row',
        table: 'switchPort',
        key: 'debug.default',
        owner: { kind: 'Pod', namespace: 'default', name: 'debug' },
        alsoIn: [
          { table: 'portGroup', key: 'node.kovn.node.2', fields: ['ports'] },
          { table: 'portGroup', key: 'ovn.default.kovn.node.2', fields: ['ports'] },
        ],
      },
    ]);
    expect(d.annotations).toEqual([
      {
        code: 'annotation-disagrees',
        owner: 'db-0.data',
        pod: { kind: 'Pod', namespace: 'data', name: 'db-0' },
        records: {
          'ip-object': expect.stringMatching(`^data ${was} `),
          annotation: expect.stringMatching(/^data 10\.17\.0\.99 /),
          'nb-port': expect.stringMatching(`^data ${was} `),
        },
        // The annotation is also a request: restarted, the controller would move the port to it.
        effects: [{ table: 'switchPort', key: 'db-0.data', fields: ['addresses'] }],
      },
    ]);
  });

  it('says which objects the controller refuses (they have no rows, and none are missing)', async () => {
    await live.cluster.create({
      apiVersion: 'kubeovn.io/v1',
      kind: 'Subnet',
      metadata: { name: 'clash' },
      spec: { cidrBlock: '10.17.0.0/25' },
    } as KubeObject);
    const d = await diagnose({ cluster: live.cluster, nb: await live.backend.read(), clock: realClock });
    expect(d.refused.map((w) => [w.kind, w.name])).toEqual([['Subnet', 'clash']]);
    expect(d.refused[0]?.message).toContain('10.17.0.0/24');
    expect(d.rows.filter((r) => r.owner?.name === 'clash')).toEqual([]);
    await live.cluster.delete({ kind: 'Subnet', name: 'clash' });
  });

  it('finds a row of ours no object explains, and never a row of another owner', async () => {
    const nbctl = (...args: string[]) => runTool('ovn-nbctl', [`--db=${live.cp.nb.remote}`, ...args]);
    await nbctl('ls-add', 'stray', '--', 'set', 'logical_switch', 'stray', 'external_ids:vendor=kovn');
    await nbctl('ls-add', 'someone-elses');
    const d = await diagnose({ cluster: live.cluster, nb: await live.backend.read(), clock: realClock });
    expect(d.rows.filter((r) => r.code === 'orphan-row')).toEqual([
      { code: 'orphan-row', table: 'switch', key: 'stray' },
    ]);
    expect(JSON.stringify(d)).not.toContain('someone-elses');
  });
});

describe.skipIf(!requireOvn('kovn ko diagnose, shipped scenarios'))(
  'diagnose finds nothing where nothing was broken',
  () => {
    const files = readdirSync('scenarios')
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `scenarios/${f}`);
    it.each(files)('%s', async (file) => {
      const live = await startLive(file, { northd: false });
      try {
        const d = await diagnose({
          cluster: live.cluster,
          nb: await live.backend.read(),
          clock: realClock,
          settings: live.settings,
        });
        expect({ rows: d.rows, annotations: d.annotations, refused: d.refused }).toEqual({
          rows: [],
          annotations: [],
          refused: [],
        });
        expect(d.checked.rows).toBeGreaterThan(0);
      } finally {
        await live.stop();
      }
    });
  },
);

describe.skipIf(!requireOvn('kovn ko diagnose, clustered NB'))('diagnose on a 3-member clustered NB', () => {
  it("reports the raft's problems beside the rows: none, then a member down", async () => {
    const nb = await startCluster();
    const live = await startLive('scenarios/quickstart.yaml', { northd: false, nb: nb.remotes });
    try {
      const raft = async () => ({
        nb: raftHealth(await Promise.all(nb.members.map((m) => memberView(m.ctl, nb.dbName)))),
        sb: [],
      });
      const run = async () =>
        diagnose({ cluster: live.cluster, nb: await live.backend.read(), clock: realClock, raft: await raft() });
      const healthy = await run();
      expect({ rows: healthy.rows, raft: healthy.raft }).toEqual({ rows: [], raft: { nb: [], sb: [] } });
      const follower = (await nb.leader()) === 0 ? 1 : 0;
      await nb.kill(follower);
      const down = await run();
      expect(down.rows).toEqual([]);
      expect(down.raft.nb.map((p) => [p.code, p.path])).toContainEqual(['unreachable', nb.members[follower]!.ctl]);
    } finally {
      await live.stop();
      await nb.stop();
    }
  });
});
