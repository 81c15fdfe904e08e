import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClusterStatus } from './cluster.ts';
import { pollUntil } from './exec.ts';
import { requireOvn, runTool, startCluster, type OvsdbCluster } from './index.ts';

async function status(c: OvsdbCluster, i: number) {
  const m = c.members[i];
  if (m === undefined) throw new Error(`no member ${i}`);
  const { stdout } = await runTool('ovs-appctl', ['-t', m.ctl, 'cluster/status', c.dbName]);
  return { text: stdout, ...parseClusterStatus(stdout) };
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!requireOvn('cluster'))('3-member raft cluster of the NB database', () => {
  let c: OvsdbCluster;
  beforeAll(async () => {
    c = await startCluster();
  });
  afterAll(async () => {
    await c?.stop();
  });

  it('has three joined members on loopback and exactly one leader', async () => {
    expect(c.dbName).toBe('OVN_Northbound');
    expect(c.members).toHaveLength(3);
    expect(c.remotes.split(',')).toEqual(c.members.map((m) => m.tcpRemote));
    expect(c.remotes).toMatch(/^tcp:127\.0\.0\.1:\d+(,tcp:127\.0\.0\.1:\d+){2}$/);
    expect(new Set(c.members.map((m) => m.raftPort)).size).toBe(3);
    const leader = await c.leader();
    const roles = await Promise.all(c.members.map((_, i) => status(c, i)));
    expect(roles.map((r) => r.role)).toEqual(c.members.map((_, i) => (i === leader ? 'leader' : 'follower')));
    for (const r of roles) {
      expect(r.text).toContain('Status: cluster member');
      for (const m of c.members) expect(r.text).toContain(`tcp:127.0.0.1:${m.raftPort}`);
    }
  });

  it('killing the leader elects another member; the restarted one rejoins and catches up', async () => {
    await runTool('ovn-nbctl', [`--db=${c.remotes}`, 'ls-add', 'before']);
    const old = await c.leader();
    const oldPid = c.members[old]?.pid ?? 0;
    await c.kill(old);
    expect(pidExists(oldPid)).toBe(false);

    const next = await c.leader();
    expect(next).not.toBe(old);
    // Writes go on through the surviving majority while the old leader is down.
    await runTool('ovn-nbctl', [`--db=${c.remotes}`, '--timeout=20', 'ls-add', 'while-down']);

    await c.restart(old);
    expect(c.members[old]?.pid).not.toBe(oldPid);
    const back = await status(c, old);
    expect(back.text).toContain('Status: cluster member');
    expect(back.role).toBe('follower');
    // The rejoined member serves what was written while it was down.
    const own = `--db=${c.members[old]?.remote}`;
    const list = await pollUntil(
      async () => {
        const { stdout } = await runTool('ovn-nbctl', [own, '--no-leader-only', 'ls-list']);
        return stdout.includes('(while-down)') ? stdout : undefined;
      },
      { timeoutMs: 20_000, onTimeout: () => new Error('restarted member never saw "while-down"') },
    );
    expect(list).toContain('(before)');
  });
});

describe('parseClusterStatus', () => {
  it('reads role and term from cluster/status output', () => {
    const text = 'Name: OVN_Northbound\nStatus: cluster member\nRole: candidate\nTerm: 7\nLeader: unknown\n';
    expect(parseClusterStatus(text)).toEqual({ role: 'candidate', term: 7 });
    expect(parseClusterStatus('Status: joining cluster\n')).toBeUndefined();
  });
});
