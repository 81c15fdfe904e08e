/**
 * Choosing a member to talk to: one connecting pass over a database's
 * remotes, for the session (session.ts explains the policy: the member just
 * lost last, followers kept and watched so a newly elected leader is used at
 * once, a deadline on each connection's set-up). Everything here works on a
 * {@link PassHost}, which the session implements; the session keeps the
 * cache and the transactions.
 */
import { OvsdbClient } from './client.ts';
import { OvsdbUnsuitableServerError, suitability, watchServerDb } from './cluster.ts';
import type { TimerHandle, Timers } from './timers.ts';
import { type Remote, type TlsCredentials, formatRemote } from './transport.ts';
import { OvsdbConnectionClosedError } from './wire/errors.ts';

/** One member tried during a connecting pass. */
export interface MemberAttempt {
  readonly remote: string;
  /** `synced`, `not-leader` (kept, waiting for an election), or `failed`. */
  readonly outcome: 'synced' | 'not-leader' | 'failed';
  readonly reason?: string;
}

export type SessionEvent =
  | { readonly kind: 'synced'; readonly remote: string; readonly after: 'pass' | 'election' }
  | { readonly kind: 'closed'; readonly remote: string; readonly reason: string }
  | { readonly kind: 'pass-failed'; readonly attempts: readonly MemberAttempt[] };

/** What a pass needs from its session. */
export interface PassHost {
  readonly remotes: readonly Remote[];
  readonly timers: Timers;
  readonly settings: {
    readonly db: string;
    readonly leaderOnly?: boolean;
    readonly probeIntervalMs?: number;
    readonly setupTimeoutMs?: number;
    readonly connectTimeoutMs?: number;
    readonly tls?: TlsCredentials;
    readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  };
  isClosed(): boolean;
  /** Calls `cb` once when the session closes; returns its unsubscribe function. */
  onClosed(cb: () => void): () => void;
  /** The client being set up (so that closing the session reaches it), or undefined. */
  setCurrent(client: OvsdbClient | undefined): void;
  /** Builds the data cache on a usable member. */
  monitorData(client: OvsdbClient, remote: string): Promise<void>;
  emit(e: SessionEvent): void;
}

export type PassOutcome =
  | { readonly client: OvsdbClient; readonly index: number; readonly attempts: readonly MemberAttempt[] }
  | { readonly client: undefined; readonly attempts: readonly MemberAttempt[]; readonly lastError?: Error };

/** A follower kept connected during a pass, watched for leadership. */
interface Parked {
  readonly index: number;
  readonly client: OvsdbClient;
  readonly remote: string;
  /** Resolves when its `_Server` row says it leads. */
  readonly leads: Promise<void>;
}

/**
 * The order of one pass: from the last good member, or, after losing one, every other member first and it last.
 *
 * @example passOrder(3, 0, 0) // [1, 2, 0]
 */
export function passOrder(n: number, preferred: number, avoid: number | undefined): number[] {
  const start = avoid === undefined ? preferred : (avoid + 1) % n;
  const order = Array.from({ length: n }, (_, k) => (start + k) % n);
  return avoid === undefined ? order : [...order.filter((i) => i !== avoid), avoid];
}

/**
 * Tries the remotes in `order` once; resolves with a synced client or none.
 * Followers (connected, not leading) are kept while the pass goes on; if no
 * member leads, the pass waits for one of them to be elected (up to the
 * backoff cap) and syncs with it.
 */
export async function connectPass(host: PassHost, order: readonly number[]): Promise<PassOutcome> {
  const attempts: MemberAttempt[] = [];
  const parked: Parked[] = [];
  let chosen: OvsdbClient | undefined;
  let lastError: Error | undefined;
  try {
    for (const i of order) {
      if (host.isClosed()) return { client: undefined, attempts };
      const remote = host.remotes[i] as Remote;
      const name = formatRemote(remote);
      let client: OvsdbClient | undefined;
      try {
        client = await OvsdbClient.connect(remote, {
          probeIntervalMs: host.settings.probeIntervalMs ?? 1500,
          timers: host.timers,
          ...(host.settings.tls === undefined ? {} : { tls: host.settings.tls }),
          ...(host.settings.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: host.settings.connectTimeoutMs }),
        });
        const c = client;
        host.setCurrent(c);
        const check = await withSetupDeadline(host, c, name, () => checkServer(host, c, name));
        if (check.kind === 'follower') {
          attempts.push({ remote: name, outcome: 'not-leader', reason: check.reason });
          parked.push({ index: i, client: c, remote: name, leads: check.leads });
          host.setCurrent(undefined);
          continue;
        }
        await withSetupDeadline(host, c, name, () => host.monitorData(c, name));
        if (host.isClosed()) {
          c.close();
          return { client: undefined, attempts };
        }
        attempts.push({ remote: name, outcome: 'synced' });
        chosen = c;
        host.emit({ kind: 'synced', remote: name, after: 'pass' });
        return { client: c, index: i, attempts };
      } catch (e) {
        lastError = e as Error;
        attempts.push({ remote: name, outcome: 'failed', reason: (e as Error).message });
        client?.close();
        host.setCurrent(undefined);
      }
    }
    const elected = await awaitElection(host, parked);
    if (elected !== undefined) {
      try {
        await withSetupDeadline(host, elected.client, elected.remote, () =>
          host.monitorData(elected.client, elected.remote),
        );
        if (!host.isClosed()) {
          attempts.push({ remote: elected.remote, outcome: 'synced', reason: 'elected while waiting' });
          chosen = elected.client;
          host.emit({ kind: 'synced', remote: elected.remote, after: 'election' });
          return { client: elected.client, index: elected.index, attempts };
        }
      } catch (e) {
        lastError = e as Error;
        attempts.push({ remote: elected.remote, outcome: 'failed', reason: (e as Error).message });
      }
      elected.client.close();
    }
    return { client: undefined, attempts, ...(lastError ? { lastError } : {}) };
  } finally {
    for (const p of parked) if (p.client !== chosen) p.client.close();
    if (chosen === undefined) host.emit({ kind: 'pass-failed', attempts });
  }
}

/** The first parked follower to become leader, within the backoff cap; undefined if none does. */
async function awaitElection(host: PassHost, parked: readonly Parked[]): Promise<Parked | undefined> {
  const live = parked.filter((p) => !p.client.closed);
  if (live.length === 0 || host.isClosed()) return undefined;
  const waitMs = (host.settings.backoff ?? { initialMs: 100, maxMs: 4000 }).maxMs;
  let timer: TimerHandle | undefined;
  let off: (() => void) | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = host.timers.setTimeout(() => resolve(undefined), waitMs);
  });
  const closed = new Promise<undefined>((resolve) => {
    off = host.onClosed(() => resolve(undefined));
  });
  const winner = await Promise.race([...live.map((p) => p.leads.then(() => p)), timeout, closed]);
  if (timer !== undefined) host.timers.clearTimeout(timer);
  off?.();
  host.setCurrent(winner?.client);
  return winner;
}

/** Runs one set-up step; past `setupTimeoutMs` the connection is closed, which fails the step with that reason. */
async function withSetupDeadline<T>(
  host: PassHost,
  client: OvsdbClient,
  remote: string,
  step: () => Promise<T>,
): Promise<T> {
  const ms = host.settings.setupTimeoutMs ?? 5000;
  const timer = host.timers.setTimeout(
    () => client.close(new OvsdbConnectionClosedError(`${remote}: set-up took longer than ${ms} ms`)),
    ms,
  );
  try {
    return await step();
  } finally {
    host.timers.clearTimeout(timer);
  }
}

/**
 * Reads `_Server` for our database: usable now, or a follower to watch (its
 * `leads` resolves when it becomes the leader); throws when the member cannot
 * serve us at all. Once usable, a change that makes it unsuitable closes the
 * connection.
 */
async function checkServer(
  host: PassHost,
  client: OvsdbClient,
  remote: string,
): Promise<{ kind: 'usable' } | { kind: 'follower'; reason: string; leads: Promise<void> }> {
  const db = host.settings.db;
  const leaderOnly = host.settings.leaderOnly ?? true;
  let usable = false;
  let elected: (() => void) | undefined;
  const leads = new Promise<void>((resolve) => {
    elected = resolve;
  });
  const status = await watchServerDb(client, db, (st) => {
    const v = suitability(st, { db, leaderOnly });
    if (usable) {
      if (!v.ok) client.close(new OvsdbUnsuitableServerError(remote, v.reason));
    } else if (v.ok) {
      usable = true;
      elected?.();
    }
  });
  const verdict = suitability(status, { db, leaderOnly });
  if (verdict.ok) {
    usable = true;
    return { kind: 'usable' };
  }
  if (leaderOnly && status?.model === 'clustered' && status.connected)
    return { kind: 'follower', reason: verdict.reason, leads };
  throw new OvsdbUnsuitableServerError(remote, verdict.reason);
}
