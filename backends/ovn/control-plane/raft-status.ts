/**
 * A clustered OVSDB's own account of itself: the text of
 * `ovs-appctl -t <ctl> cluster/status <db>` (OVS 3.1's raft.c,
 * `raft_unixctl_status`) parsed into a value, and the health of a cluster
 * judged from what its members say. What `kovn ko status` prints and what
 * `kovn ko diagnose` checks.
 *
 * A standalone ovsdb-server registers no `cluster/status` command at all: it
 * answers `"cluster/status" is not a valid command`, told apart here as
 * `standalone`, not as a failure.
 */
import { runTool } from './exec.ts';

/** One line of the `Servers:` list. */
export interface RaftServer {
  /** Short server id (4 hex digits), as every line of the status names servers. */
  readonly sid: string;
  readonly address: string;
  readonly self: boolean;
  /** Only on the leader: the next log index it sends this server, and the last one it knows it holds. */
  readonly nextIndex?: number;
  readonly matchIndex?: number;
  /** Milliseconds since this member last heard from that server (absent for itself, or never). */
  readonly lastMsgMs?: number;
}

export interface RaftStatus {
  readonly name: string;
  /** Short cluster id (4 hex digits). */
  readonly clusterId: string;
  readonly serverId: string;
  readonly address: string;
  /** `cluster member`, or `joining cluster`, `leaving cluster`, `left cluster`, `failed`. */
  readonly status: string;
  /** `leader`, `follower` or `candidate`. */
  readonly role: string;
  readonly term: number;
  /** The leader's short id, `self`, or `unknown`. */
  readonly leader: string;
  readonly electionTimerMs?: number;
  /** The member's log: first and last index. */
  readonly log: { readonly first: number; readonly last: number };
  readonly notCommitted: number;
  readonly notApplied: number;
  /** `->sid` outgoing, `<-sid` incoming; `->0000` a connection still learning who it is to. */
  readonly connections: readonly string[];
  readonly disconnections: number;
  readonly servers: readonly RaftServer[];
}

/** Why a text is not a status: the field that is missing or malformed. */
export interface RaftParseProblem {
  readonly code: 'missing-field';
  readonly path: string;
}

const field = (text: string, name: string): string | undefined =>
  new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1]?.trim();

/** `4952 (4952 at tcp:127.0.0.1:16642) (self) next_index=4 match_index=3 last msg 2 ms ago` */
const SERVER_RE = /^\s+([0-9a-f]{4}) \(\S+ at (\S+)\)( \(self\))?(.*)$/;

function parseServer(line: string): RaftServer | undefined {
  const m = SERVER_RE.exec(line);
  if (m === null) return undefined;
  const rest = m[4] ?? '';
  const num = (re: RegExp) => {
    const v = re.exec(rest)?.[1];
    return v === undefined ? undefined : Number(v);
  };
  const nextIndex = num(/next_index=(\d+)/);
  const matchIndex = num(/match_index=(\d+)/);
  const lastMsgMs = num(/last msg (\d+) ms ago/);
  return {
    sid: m[1]!,
    address: m[2]!,
    self: m[3] !== undefined,
    ...(nextIndex !== undefined ? { nextIndex } : {}),
    ...(matchIndex !== undefined ? { matchIndex } : {}),
    ...(lastMsgMs !== undefined ? { lastMsgMs } : {}),
  };
}

/**
 * @example
 * const r = parseRaftStatus(stdout);
 * if (r.ok) r.status.role; // 'leader'
 */
export function parseRaftStatus(
  text: string,
): { readonly ok: true; readonly status: RaftStatus } | { readonly ok: false; readonly problem: RaftParseProblem } {
  const need: Record<string, string | undefined> = {
    Name: field(text, 'Name'),
    'Cluster ID': field(text, 'Cluster ID'),
    'Server ID': field(text, 'Server ID'),
    Address: field(text, 'Address'),
    Status: field(text, 'Status'),
    Role: field(text, 'Role'),
    Term: field(text, 'Term'),
    Leader: field(text, 'Leader'),
    Log: field(text, 'Log'),
  };
  for (const [k, v] of Object.entries(need)) if (v === undefined) return { ok: false, problem: missing(k) };
  const log = /^\[(\d+), (\d+)\]$/.exec(need.Log!);
  if (log === null) return { ok: false, problem: missing('Log') };
  const servers: RaftServer[] = [];
  const list = text.split('\nServers:\n')[1] ?? '';
  for (const line of list.split('\n')) {
    const s = parseServer(line);
    if (s !== undefined) servers.push(s);
  }
  const timer = field(text, 'Election timer');
  const short = (v: string) => v.split(' ')[0]!;
  return {
    ok: true,
    status: {
      name: need.Name!,
      clusterId: short(need['Cluster ID']!),
      serverId: short(need['Server ID']!),
      address: need.Address!,
      status: need.Status!,
      role: need.Role!,
      term: Number(need.Term),
      leader: need.Leader!,
      ...(timer !== undefined ? { electionTimerMs: Number(timer) } : {}),
      log: { first: Number(log[1]), last: Number(log[2]) },
      notCommitted: Number(field(text, 'Entries not yet committed') ?? 0),
      notApplied: Number(field(text, 'Entries not yet applied') ?? 0),
      connections: (field(text, 'Connections') ?? '').split(' ').filter(Boolean),
      disconnections: Number(field(text, 'Disconnections') ?? 0),
      servers,
    },
  };
}

const missing = (path: string): RaftParseProblem => ({ code: 'missing-field', path });

/** What one member's unixctl socket answered. */
export type MemberView =
  | { readonly kind: 'clustered'; readonly ctl: string; readonly status: RaftStatus }
  | { readonly kind: 'standalone'; readonly ctl: string }
  | { readonly kind: 'unreachable'; readonly ctl: string; readonly message: string };

/**
 * Asks one member for its status through its unixctl socket.
 *
 * @example await memberView('/run/ovn/ovnnb_db.ctl', 'OVN_Northbound') // { kind: 'clustered', status: {...} }
 */
export async function memberView(ctl: string, db: string): Promise<MemberView> {
  try {
    const { stdout } = await runTool('ovs-appctl', ['-t', ctl, 'cluster/status', db], { timeoutMs: 5_000 });
    const r = parseRaftStatus(stdout);
    if (r.ok) return { kind: 'clustered', ctl, status: r.status };
    return { kind: 'unreachable', ctl, message: `cluster/status ${db}: no ${r.problem.path} in the answer` };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (message.includes('"cluster/status" is not a valid command')) return { kind: 'standalone', ctl };
    return { kind: 'unreachable', ctl, message };
  }
}

export type RaftProblemCode =
  | 'unreachable' // a member's socket did not answer
  | 'no-leader' // no member knows a leader
  | 'two-leaders' // two members claim the lead in one term
  | 'not-member' // a member is joining, leaving, left or failed
  | 'other-cluster' // members of different cluster ids were named together
  | 'server-silent' // the leader has not heard from a server for more than two election timers
  | 'lagging'; // a server's log is behind the leader's commit

/** One thing wrong with a cluster, naming the member it is about. */
export interface RaftProblem {
  readonly code: RaftProblemCode;
  /** The unixctl socket of the member that said it, or the server's address. */
  readonly path: string;
  readonly message: string;
}

/** Members heard from, leaders among them. */
function leaders(views: readonly MemberView[]) {
  const clustered = views.flatMap((v) => (v.kind === 'clustered' ? [v] : []));
  return { clustered, leading: clustered.filter((v) => v.status.role === 'leader') };
}

/** The leader's view of its servers: silent ones and ones whose log is behind. */
function serverProblems(leader: RaftStatus): RaftProblem[] {
  const out: RaftProblem[] = [];
  const silentAfter = 2 * (leader.electionTimerMs ?? 1000);
  for (const s of leader.servers) {
    if (s.self) continue;
    if (s.lastMsgMs === undefined || s.lastMsgMs > silentAfter) {
      const when = s.lastMsgMs === undefined ? 'never' : `${s.lastMsgMs} ms ago`;
      out.push({ code: 'server-silent', path: s.address, message: `server ${s.sid} last heard from ${when}` });
    } else if (s.matchIndex !== undefined && s.matchIndex + leader.notCommitted < leader.log.last - 1) {
      const m = `server ${s.sid} holds the log up to ${s.matchIndex}, the leader's ends at ${leader.log.last}`;
      out.push({ code: 'lagging', path: s.address, message: m });
    }
  }
  return out;
}

/**
 * Health of one database's cluster from its members' views: empty when
 * healthy, and for a standalone database (it has no raft to be unhealthy).
 *
 * @example raftHealth(await Promise.all(ctls.map((c) => memberView(c, 'OVN_Northbound'))))
 */
export function raftHealth(views: readonly MemberView[]): RaftProblem[] {
  const out: RaftProblem[] = [];
  for (const v of views)
    if (v.kind === 'unreachable') out.push({ code: 'unreachable', path: v.ctl, message: v.message });
  const { clustered, leading } = leaders(views);
  const first = clustered[0];
  if (first === undefined) return out;
  const ids = new Set(clustered.map((v) => v.status.clusterId));
  if (ids.size > 1) out.push({ code: 'other-cluster', path: first.ctl, message: `cluster ids ${[...ids].join(', ')}` });
  out.push(...agreement(first.ctl, clustered, leading));
  const newest = leading.toSorted((a, b) => b.status.term - a.status.term)[0];
  if (newest !== undefined) out.push(...serverProblems(newest.status));
  return out;
}

type Clustered = MemberView & { kind: 'clustered' };

/** Membership, one leader per term, and a leader someone knows. */
function agreement(path: string, clustered: readonly Clustered[], leading: readonly Clustered[]): RaftProblem[] {
  const out: RaftProblem[] = [];
  for (const v of clustered)
    if (v.status.status !== 'cluster member')
      out.push({ code: 'not-member', path: v.ctl, message: `server ${v.status.serverId}: ${v.status.status}` });
  const byTerm = new Map<number, string[]>();
  for (const v of leading) byTerm.set(v.status.term, [...(byTerm.get(v.status.term) ?? []), v.status.serverId]);
  for (const [term, sids] of byTerm)
    if (sids.length > 1) out.push({ code: 'two-leaders', path, message: `term ${term}: ${sids.join(', ')} all lead` });
  if (!clustered.some((v) => v.status.leader !== 'unknown'))
    out.push({ code: 'no-leader', path, message: 'no member knows a leader' });
  return out;
}
