/**
 * ovn-central's start script, run for real: three members on three loopback
 * addresses (each with its own run, log and database folders, as three
 * nodes would have) form one Northbound and one Southbound raft cluster with
 * a leader; a logical switch written through one member is compiled by
 * ovn-northd into the Southbound database read through another; the
 * health script passes on every member; SIGTERM stops each member's daemons
 * and the script exits 0.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTempDir, removeTempDir, requireOvn, runTool } from '../../backends/ovn/control-plane/index.ts';
import { DEPLOY } from './manifests.ts';

/** Loopback addresses no other test uses; the script's ports are the fixed ones of a real node (6641-6644). */
const IPS = ['127.77.0.1', '127.77.0.2', '127.77.0.3'];

interface Member {
  readonly ip: string;
  readonly env: NodeJS.ProcessEnv;
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  output: string;
}

const script = (name: string) => join(DEPLOY, 'scripts', name);
const run = promisify(execFile);

async function startMember(dir: string, ip: string): Promise<Member> {
  const env = {
    ...process.env,
    NODE_IPS: IPS.join(','),
    POD_IP: ip,
    OVN_RUNDIR: join(dir, ip, 'run'),
    OVN_LOGDIR: join(dir, ip, 'log'),
    OVN_DBDIR: join(dir, ip, 'db'),
  };
  for (const d of ['run', 'log', 'db']) await mkdir(join(dir, ip, d), { recursive: true });
  const proc = spawn('sh', [script('start-central.sh')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const m: Member = {
    ip,
    env,
    proc,
    output: '',
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  proc.stdout?.on('data', (b: Buffer) => (m.output += b.toString()));
  proc.stderr?.on('data', (b: Buffer) => (m.output += b.toString()));
  return m;
}

const clusterStatus = async (m: Member, db: 'nb' | 'sb') =>
  (
    await runTool('ovn-appctl', [
      '-t',
      join(m.env.OVN_RUNDIR!, `ovn${db}_db.ctl`),
      'cluster/status',
      db === 'nb' ? 'OVN_Northbound' : 'OVN_Southbound',
    ])
  ).stdout;

describe.skipIf(!requireOvn('deploy: ovn-central start script'))('start-central.sh, three members', () => {
  let dir: string;
  const members: Member[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('deploycentral');
    for (const ip of IPS) members.push(await startMember(dir, ip));
  });
  afterAll(async () => {
    for (const m of members)
      if (m.proc.exitCode === null && m.proc.pid !== undefined) process.kill(m.proc.pid, 'SIGTERM');
    await Promise.all(members.map((m) => m.exited));
    // A member whose script failed before its trap was set leaves daemons behind: ovn-ctl stops them.
    for (const m of members)
      await run('/usr/share/ovn/scripts/ovn-ctl', ['stop_northd'], { env: m.env }).catch(() => undefined);
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('form NB and SB raft clusters of three with one leader', async () => {
    for (const db of ['nb', 'sb'] as const)
      await vi.waitFor(
        async () => {
          const s = await clusterStatus(members[0]!, db);
          const servers = s.split('Servers:')[1] ?? '';
          for (const ip of IPS) expect(servers, `${db}: ${s}`).toContain(`tcp:${ip}:${db === 'nb' ? 6643 : 6644}`);
          expect(s).toMatch(/^Leader: \S+/m);
          expect(s).not.toMatch(/^Leader: unknown/m);
        },
        { timeout: 60_000, interval: 500 },
      );
  });

  it("a switch written through a follower is compiled by northd and read through another's Southbound", async () => {
    // The Services reach any member: a follower forwards the transaction to the leader.
    const roles = await Promise.all(members.map((m) => clusterStatus(m, 'nb')));
    const follower = members[roles.findIndex((s) => /^Role: follower$/m.test(s))]!;
    expect(follower, roles.join('\n')).toBeDefined();
    await runTool('ovn-nbctl', ['--no-leader-only', `--db=tcp:${follower.ip}:6641`, 'ls-add', 'deploy-ls']);
    await vi.waitFor(
      async () => {
        const out = await runTool('ovn-sbctl', [
          '--no-leader-only',
          `--db=tcp:${IPS[0]}:6642`,
          '--bare',
          '--columns=external_ids',
          'list',
          'Datapath_Binding',
        ]);
        expect(out.stdout).toContain('name=deploy-ls');
      },
      { timeout: 60_000, interval: 500 },
    );
  });

  it('the health script passes on every member', async () => {
    // Retried as the kubelet retries a probe (failureThreshold): it failed once on a loaded machine, cause not captured.
    for (const m of members) {
      await vi.waitFor(() => run('sh', [script('central-health.sh')], { env: m.env }), {
        timeout: 30_000,
        interval: 500,
      });
    }
  });

  it('SIGTERM stops the daemons and the script exits 0', async () => {
    const pids = async (m: Member) =>
      Promise.all(
        ['ovnnb_db', 'ovnsb_db', 'ovn-northd'].map(async (d) =>
          Number((await readFile(join(m.env.OVN_RUNDIR!, `${d}.pid`), 'utf8')).trim()),
        ),
      );
    const m = members[2]!;
    const before = await pids(m);
    process.kill(m.proc.pid!, 'SIGTERM');
    expect(await m.exited, m.output).toBe(0);
    for (const pid of before) expect(() => process.kill(pid, 0), `pid ${pid}`).toThrow();
  });

  it('members restarted on their files rejoin the same clusters, the first (creator) one too, with the data', async () => {
    members[2] = await startMember(dir, IPS[2]!);
    const first = members[0]!;
    process.kill(first.proc.pid!, 'SIGTERM');
    expect(await first.exited, first.output).toBe(0);
    members[0] = await startMember(dir, IPS[0]!);
    const idOf = (s: string) => /^Cluster ID: \S+ \((\S+)\)$/m.exec(s)?.[1];
    for (const db of ['nb', 'sb'] as const)
      await vi.waitFor(
        async () => {
          const statuses = await Promise.all(members.map((m) => clusterStatus(m, db)));
          const ids = new Set(statuses.map(idOf));
          expect(ids.size, statuses.join('\n')).toBe(1);
          expect([...ids][0]).toBeDefined();
          for (const s of statuses) expect(s).toMatch(/^Status: cluster member$/m);
          expect(statuses[0]).not.toMatch(/^Leader: unknown/m);
        },
        { timeout: 60_000, interval: 500 },
      );
    const switches = await runTool('ovn-nbctl', ['--no-leader-only', `--db=tcp:${IPS[0]}:6641`, 'ls-list']);
    expect(switches.stdout).toContain('deploy-ls');
  });
});
