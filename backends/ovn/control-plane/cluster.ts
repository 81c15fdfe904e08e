/**
 * A clustered (raft) OVSDB on one machine: members on loopback TCP raft
 * ports, each also serving clients on a unix socket and a loopback TCP port.
 * For the client's leader-loss tests: find the leader, kill it, restart it.
 */
import { rm } from 'node:fs/promises';
import { makeTempDir, removeTempDir } from './run-dir.ts';
import { ControlPlaneError } from './errors.ts';
import { pollUntil, runTool } from './exec.ts';
import { NB_SCHEMA, OvsdbServerProcess, type OvsdbServer } from './ovsdb-server.ts';
import { LOOPBACK, freePorts } from './ports.ts';

export interface ClusterMember extends OvsdbServer {
  /** Position in `members` (0-based). */
  readonly index: number;
  readonly raftPort: number;
}

export interface OvsdbCluster {
  readonly dir: string;
  readonly members: readonly ClusterMember[];
  /** Client remotes of every member: 'tcp:127.0.0.1:p1,tcp:127.0.0.1:p2,tcp:127.0.0.1:p3'. */
  readonly remotes: string;
  /** Database name, from the schema (e.g. OVN_Northbound). */
  readonly dbName: string;
  /** Index of the current leader among running members; polls until one is elected. */
  leader(): Promise<number>;
  /** SIGKILLs member `i`. */
  kill(i: number): Promise<void>;
  /** Starts member `i` again on its db file; resolves once it has rejoined. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Default: a fresh temp dir, removed on stop unless KOVN_KEEP_TMP=1. */
  dir?: string;
  /** Default: the OVN Northbound schema. */
  schema?: string;
  /** Default 3. */
  members?: number;
}

class Member extends OvsdbServerProcess implements ClusterMember {
  constructor(
    readonly index: number,
    readonly raftPort: number,
    dir: string,
    dbName: string,
  ) {
    super({
      dir,
      name: `m${index}`,
      db: `${dir}/m${index}.db`,
      tcpPort: 0,
      clusterDbName: dbName,
      raftPort,
      readyTimeoutMs: 60_000,
    });
  }
}

/** Role and term of one member, from `cluster/status`. */
export function parseClusterStatus(text: string): { role: string; term: number } | undefined {
  const role = /^Role: (\S+)/m.exec(text)?.[1];
  const term = /^Term: (\d+)/m.exec(text)?.[1];
  return role === undefined || term === undefined ? undefined : { role, term: Number(term) };
}

async function createDbs(dir: string, schema: string, dbName: string, raftPorts: readonly number[]): Promise<void> {
  const addr = (p: number): string => `tcp:${LOOPBACK}:${p}`;
  const [first, ...rest] = raftPorts;
  if (first === undefined) throw new ControlPlaneError('start-failed', 'cluster: needs at least one member');
  await runTool('ovsdb-tool', ['create-cluster', `${dir}/m0.db`, schema, addr(first)], { dir });
  await Promise.all(
    rest.map((port, i) =>
      runTool('ovsdb-tool', ['join-cluster', `${dir}/m${i + 1}.db`, dbName, addr(port), addr(first)], { dir }),
    ),
  );
}

async function memberStatus(m: Member, dbName: string): Promise<{ role: string; term: number } | undefined> {
  if (!m.running) return undefined;
  const { stdout } = await runTool('ovs-appctl', ['-t', m.ctl, 'cluster/status', dbName], { timeoutMs: 5_000 });
  return parseClusterStatus(stdout);
}

async function findLeader(members: readonly Member[], dbName: string): Promise<number> {
  return pollUntil(
    async () => {
      let best: { index: number; term: number } | undefined;
      for (const m of members) {
        const s = await memberStatus(m, dbName).catch(() => undefined);
        if (s?.role === 'leader' && (best === undefined || s.term > best.term)) best = { index: m.index, term: s.term };
      }
      return best?.index;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 100,
      onTimeout: () =>
        new ControlPlaneError('no-leader', `cluster ${dbName}: no member reports Role: leader after 30 s`),
    },
  );
}

/** One attempt with a given set of raft ports; cleans up its members on failure. */
async function tryStart(dir: string, schema: string, dbName: string, n: number): Promise<Member[]> {
  const raftPorts = await freePorts(n);
  await createDbs(dir, schema, dbName, raftPorts);
  const members = raftPorts.map((port, i) => new Member(i, port, dir, dbName));
  const results = await Promise.allSettled(members.map((m) => m.start()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(members.map((m) => m.kill()));
    throw failed.reason;
  }
  return members;
}

async function startMembers(dir: string, schema: string, dbName: string, n: number): Promise<Member[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryStart(dir, schema, dbName, n);
    } catch (e) {
      // A raft port taken between our probe and the server's bind: new ports, new files.
      if (!(e instanceof ControlPlaneError && e.code === 'port-in-use') || attempt >= 3) throw e;
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          rm(`${dir}/m${i}.db`, { force: true }).then(() => rm(`${dir}/m${i}.log`, { force: true })),
        ),
      );
    }
  }
}

/**
 * Starts an `n`-member raft cluster (`ovsdb-tool create-cluster` on member
 * 0, `join-cluster` for the others); resolves once every member has joined
 * and a leader is elected.
 *
 * @example
 * const c = await startCluster();
 * const i = await c.leader();
 * await c.kill(i);                 // another member takes over
 * await c.restart(i);              // and i rejoins as a follower
 * await c.stop();
 */
export async function startCluster(opts: ClusterOptions = {}): Promise<OvsdbCluster> {
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? (await makeTempDir('raft'));
  const schema = opts.schema ?? NB_SCHEMA;
  const n = opts.members ?? 3;
  let dbName: string;
  let members: Member[];
  try {
    dbName = (await runTool('ovsdb-tool', ['schema-name', schema])).stdout.trim();
    members = await startMembers(dir, schema, dbName, n);
  } catch (e) {
    if (ownDir) await removeTempDir(dir);
    throw e;
  }
  const at = (i: number): Member => {
    const m = members[i];
    if (m === undefined) throw new RangeError(`cluster: no member ${i} (members 0..${members.length - 1})`);
    return m;
  };
  const cluster: OvsdbCluster = {
    dir,
    members,
    dbName,
    remotes: members.map((m) => m.tcpRemote).join(','),
    leader: () => findLeader(members, dbName),
    kill: (i) => at(i).kill(),
    restart: (i) => at(i).restart(),
    async stop() {
      const results = await Promise.allSettled(members.map((m) => m.stop()));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (ownDir) await removeTempDir(dir);
    },
  };
  try {
    await cluster.leader();
  } catch (e) {
    await cluster.stop().catch(() => undefined);
    throw e;
  }
  return cluster;
}
