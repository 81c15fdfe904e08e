import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from './exec.ts';
import {
  memberView,
  type MemberView,
  parseRaftStatus,
  raftHealth,
  requireOvn,
  startControlPlane,
  startCluster,
  type OvsdbCluster,
} from './index.ts';

/** What OVS 3.1 printed for a two-member cluster's follower (trimmed to the fields read). */
const FOLLOWER = `4952
Name: OVN_Northbound
Cluster ID: 8d68 (8d680f89-e746-4d54-bf31-faa81a419fee)
Server ID: 4952 (4952f6d1-86d7-4014-b900-ba850310274e)
Address: tcp:127.0.0.1:16642
Status: cluster member
Role: follower
Term: 1
Leader: 25de
Vote: unknown

Election timer: 1000
Log: [2, 4]
Entries not yet committed: 0
Entries not yet applied: 0
Connections: ->0000 <-25de
Disconnections: 0
Servers:
    4952 (4952 at tcp:127.0.0.1:16642) (self)
    25de (25de at tcp:127.0.0.1:16641) last msg 5 ms ago
`;

describe('parseRaftStatus', () => {
  it("reads a follower's status, its servers and who leads", () => {
    const r = parseRaftStatus(FOLLOWER);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.status).toMatchObject({
      name: 'OVN_Northbound',
      clusterId: '8d68',
      serverId: '4952',
      role: 'follower',
      term: 1,
      leader: '25de',
      electionTimerMs: 1000,
      log: { first: 2, last: 4 },
      connections: ['->0000', '<-25de'],
    });
    expect(r.status.servers).toEqual([
      { sid: '4952', address: 'tcp:127.0.0.1:16642', self: true },
      { sid: '25de', address: 'tcp:127.0.0.1:16641', self: false, lastMsgMs: 5 },
    ]);
  });

  it('names the field a truncated answer lacks', () => {
    expect(parseRaftStatus(FOLLOWER.replace(/^Role: .*\n/m, ''))).toEqual({
      ok: false,
      problem: { code: 'missing-field', path: 'Role' },
    });
  });

  it('sees two leaders of one term and a cluster nobody leads', () => {
    const r = parseRaftStatus(FOLLOWER);
    if (!r.ok) throw new Error('parse');
    const lead = (sid: string): MemberView => ({
      kind: 'clustered',
      ctl: `/x/${sid}.ctl`,
      status: { ...r.status, serverId: sid, role: 'leader', leader: 'self', servers: [] },
    });
    expect(raftHealth([lead('aaaa'), lead('bbbb')]).map((p) => p.code)).toEqual(['two-leaders']);
    const lost: MemberView = { kind: 'clustered', ctl: '/x/c.ctl', status: { ...r.status, leader: 'unknown' } };
    expect(raftHealth([lost]).map((p) => p.code)).toEqual(['no-leader']);
  });

  it("judges the leader's servers: silent past two election timers, or a log behind the committed part", () => {
    const r = parseRaftStatus(FOLLOWER);
    if (!r.ok) throw new Error('parse');
    const server = (sid: string, lastMsgMs: number, matchIndex: number) => ({
      sid,
      address: `tcp:127.0.0.1:${sid}`,
      self: false,
      nextIndex: matchIndex + 1,
      matchIndex,
      lastMsgMs,
    });
    const leader: MemberView = {
      kind: 'clustered',
      ctl: '/x/l.ctl',
      status: {
        ...r.status,
        role: 'leader',
        leader: 'self',
        log: { first: 2, last: 100 },
        servers: [
          { sid: 'aaaa', address: 'tcp:127.0.0.1:aaaa', self: true },
          server('bbbb', 5, 99),
          server('cccc', 2001, 99),
          server('dddd', 5, 40),
        ],
      },
    };
    expect(raftHealth([leader]).map((p) => [p.code, p.path])).toEqual([
      ['server-silent', 'tcp:127.0.0.1:cccc'],
      ['lagging', 'tcp:127.0.0.1:dddd'],
    ]);
  });
});

describe.skipIf(!requireOvn('raft status'))('cluster/status of a real 3-member NB', () => {
  let c: OvsdbCluster;
  beforeAll(async () => {
    c = await startCluster();
  });
  afterAll(async () => {
    await c?.stop();
  });

  const views = () => Promise.all(c.members.map((m) => memberView(m.ctl, c.dbName)));

  it('every member answers: one leader all agree on, three servers, a healthy cluster', async () => {
    const leader = await c.leader();
    const vs = await views();
    const statuses = vs.map((v) => (v.kind === 'clustered' ? v.status : undefined));
    expect(statuses.every((s) => s !== undefined)).toBe(true);
    const leaderSid = statuses[leader]!.serverId;
    expect(statuses.map((s) => s!.role)).toEqual(c.members.map((_, i) => (i === leader ? 'leader' : 'follower')));
    for (const s of statuses) {
      expect(s!.leader === 'self' ? s!.serverId : s!.leader).toBe(leaderSid);
      expect(s!.servers.map((x) => x.address).sort()).toEqual(
        c.members.map((m) => `tcp:127.0.0.1:${m.raftPort}`).sort(),
      );
      expect(new Set(statuses.map((x) => x!.clusterId)).size).toBe(1);
    }
    expect(raftHealth(vs)).toEqual([]);
  });

  it('a killed follower: its socket is unreachable and the leader stops hearing from it', async () => {
    const leader = await c.leader();
    const victim = (leader + 1) % 3;
    const address = `tcp:127.0.0.1:${c.members[victim]!.raftPort}`;
    await c.kill(victim);
    // The leader's "last msg" for it grows past two election timers: wait for that, then judge.
    const problems = await pollUntil(
      async () => {
        const p = raftHealth(await views());
        return p.some((x) => x.code === 'server-silent') ? p : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, onTimeout: () => new Error('the leader never found the server silent') },
    );
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['unreachable', c.members[victim]!.ctl],
      ['server-silent', address],
    ]);
    await c.restart(victim);
  });
});

describe.skipIf(!requireOvn('raft status, standalone'))('cluster/status of a standalone NB', () => {
  it('is told apart as standalone, and has no raft problems', async () => {
    const cp = await startControlPlane({ northd: false });
    try {
      const v = await memberView(cp.nb.ctl, 'OVN_Northbound');
      expect(v).toEqual({ kind: 'standalone', ctl: cp.nb.ctl });
      expect(raftHealth([v])).toEqual([]);
    } finally {
      await cp.stop();
    }
  });
});
