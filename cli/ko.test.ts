import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvn, runTool, startCluster } from '../backends/ovn/control-plane/index.ts';
import { type LiveCluster, type ServedLive, serveLive, startLive } from '../scenarios/ko/testing/live.ts';
import { startKovn } from './testing/index.ts';

/** `kovn ko ...` to completion: exit code, stdout, stderr. */
async function ko(args: readonly string[], tmp: string, env: NodeJS.ProcessEnv = {}) {
  const k = startKovn(['ko', ...args], { tmp, env });
  const { code } = await k.exited;
  await k.closed;
  return { code, stdout: k.stdout(), stderr: k.stderr() };
}

describe.skipIf(!requireOvn('kovn ko'))('kovn ko against a served cluster with a live NB/SB', () => {
  let live: LiveCluster;
  let served: ServedLive;
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'ko-cli-'));
    live = await startLive('scenarios/quickstart.yaml', { northd: true });
    served = await serveLive(live, tmp);
  });
  afterAll(async () => {
    await served?.close();
    await live?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("nbctl runs ovn-nbctl on the NB the cluster's ConfigMap names, options passed through", async () => {
    const r = await ko(
      ['nbctl', '--kubeconfig', served.kubeconfig, '--bare', '--columns=name', 'list', 'Logical_Switch'],
      tmp,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['data', 'join', 'ovn-default']);
    // Everything after -- is ovn-nbctl's, even an option kovn ko has too.
    const dashed = await ko(
      ['nbctl', '--nb', live.cp.nb.remote, '--', '--bare', '--columns=name', 'list', 'Logical_Router'],
      tmp,
    );
    expect(dashed.stdout).toBe('ovn-cluster\n');
    const theirs = await ko(['nbctl', '--nb', live.cp.nb.remote, '--', '--nb', 'show'], tmp);
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toMatch(/ovn-nbctl.*--nb/);
  });

  it('sbctl runs ovn-sbctl on the SB given by --sb, over the ConfigMap', async () => {
    const r = await ko(['sbctl', '--sb', live.cp.sb.remote, '--bare', '--columns=nb_cfg', 'list', 'SB_Global'], tmp);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\n$/);
    const none = await ko(['sbctl', 'show'], tmp, { OVN_SB_DB: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no sb: give --sb');
  });

  it('status: standalone databases, no raft problems', async () => {
    const r = await ko(['status', '--kubeconfig', served.kubeconfig, '--json'], tmp);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.databases.map((d: { db: string; members: { kind: string }[] }) => [d.db, d.members[0]?.kind])).toEqual([
      ['OVN_Northbound', 'standalone'],
      ['OVN_Southbound', 'standalone'],
    ]);
  });

  it('diagnose finds nothing, then exactly what was broken by hand; trace agrees, then disagrees', async () => {
    const clean = await ko(['diagnose', '--kubeconfig', served.kubeconfig], tmp);
    expect(clean.stdout).toContain('no findings');
    expect(clean.code).toBe(0);
    const probe = ['shop/web-9jwrnlsw9q-hl97j', 'data/db-0', 'tcp', '5432'];
    const agree = await ko(['trace', '--kubeconfig', served.kubeconfig, ...probe, '--json'], tmp);
    expect(agree.code).toBe(0);
    expect(JSON.parse(agree.stdout)).toMatchObject({ sim: { allowed: true }, ovn: { allowed: true }, agree: true });

    await runTool('ovn-nbctl', [`--db=${live.cp.nb.remote}`, 'lsp-del', 'db-0.data']);
    const broken = await ko(['diagnose', '--kubeconfig', served.kubeconfig, '--json'], tmp);
    expect(broken.code).toBe(1);
    const d = JSON.parse(broken.stdout);
    expect(d.rows.map((r: { code: string; key: string }) => [r.code, r.key])).toEqual([['missing-row', 'db-0.data']]);
    const text = await ko(['diagnose', '--kubeconfig', served.kubeconfig], tmp);
    expect(text.stdout).toMatch(/missing-row\s+switchPort\s+db-0\.data\s+Pod\/data\/db-0/);
    const disagree = await ko(['trace', '--kubeconfig', served.kubeconfig, ...probe], tmp);
    expect(disagree.code).toBe(1);
    expect(disagree.stdout).toContain('DISAGREE');
  });
});

describe.skipIf(!requireOvn('kovn ko status, clustered'))('kovn ko status on a 3-member clustered NB', () => {
  it('one leader, three members of one cluster, healthy; a member gone is a problem (exit 1)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'ko-status-'));
    const c = await startCluster();
    try {
      const ctl = c.members.map((m) => m.ctl).join(',');
      const r = await ko(['status', '--nb-ctl', ctl, '--json'], tmp);
      expect(r.code).toBe(0);
      const [nb] = JSON.parse(r.stdout).databases;
      const roles = nb.members.map((m: { status: { role: string } }) => m.status.role).sort();
      expect(roles).toEqual(['follower', 'follower', 'leader']);
      expect(nb.problems).toEqual([]);
      const text = await ko(['status', '--nb-ctl', ctl], tmp);
      expect(text.stdout).toMatch(/OVN_Northbound:\n\s+MEMBER\s+SID\s+ADDRESS\s+ROLE/);
      expect(text.stdout).toContain('healthy');
      const follower = (await c.leader()) === 0 ? 1 : 0;
      await c.kill(follower);
      const down = await ko(['status', '--nb-ctl', ctl], tmp);
      expect(down.code).toBe(1);
      expect(down.stdout).toContain(`unreachable: ${c.members[follower]!.ctl}`);
    } finally {
      await c.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
