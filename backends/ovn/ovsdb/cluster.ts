/**
 * Clustered databases: which member to talk to. Every ovsdb-server has a
 * `_Server` database whose `Database` table has one row per database it
 * serves, with `model` (standalone, clustered, relay), `connected` (this
 * member is part of a working cluster) and `leader` (this member is the raft
 * leader). We monitor that row on every connection: writes go to the leader
 * only (followers would forward them, adding a hop and weakening
 * read-your-writes), and when the row stops saying so we drop the
 * connection and look for the new leader.
 */
import type { OvsdbClient } from './client.ts';
import { OvsdbCache } from './cache.ts';
import { OvsdbClientError } from './wire/errors.ts';

export const SERVER_DB = '_Server';

export interface ServerDbStatus {
  readonly name: string;
  readonly model: 'standalone' | 'clustered' | 'relay' | string;
  readonly connected: boolean;
  readonly leader: boolean;
  /** Raft log index of the last applied entry (clustered only). */
  readonly index: number | undefined;
}

export type Suitability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether a member may serve us. Standalone and relay databases always may
 * (a relay forwards writes); a clustered one must be connected to its
 * cluster, and be the leader when `leaderOnly`.
 *
 * @example suitability({ name: 'OVN_Northbound', model: 'clustered', connected: true, leader: false, index: 9 }, { leaderOnly: true })
 * // {ok: false, reason: 'not the leader of OVN_Northbound'}
 */
export function suitability(
  status: ServerDbStatus | undefined,
  opts: { db: string; leaderOnly: boolean },
): Suitability {
  if (status === undefined) return { ok: false, reason: `database ${opts.db} is not served here` };
  if (status.model !== 'clustered') return { ok: true };
  if (!status.connected) return { ok: false, reason: `${opts.db} is not connected to its cluster` };
  if (opts.leaderOnly && !status.leader) return { ok: false, reason: `not the leader of ${opts.db}` };
  return { ok: true };
}

/** The server refused to be used: not the leader, not connected, or no such database. */
export class OvsdbUnsuitableServerError extends OvsdbClientError {
  override readonly name: string = 'OvsdbUnsuitableServerError';
  constructor(remote: string, reason: string) {
    super('not-connected', `ovsdb ${remote}: ${reason}`);
  }
}

/**
 * Monitors `_Server.Database` for `db` on `client`; resolves with the
 * current status, then calls `onChange` on every change. Throws if the
 * server's `_Server` has an unexpected shape.
 */
export async function watchServerDb(
  client: OvsdbClient,
  db: string,
  onChange: (status: ServerDbStatus | undefined) => void,
): Promise<ServerDbStatus | undefined> {
  const schema = await client.getSchema(SERVER_DB);
  const columns = ['name', 'model', 'connected', 'leader', 'index'].filter(
    (c) => schema.tables.Database?.columns[c] !== undefined,
  );
  const cache = new OvsdbCache({ schema, tables: { Database: columns } });
  const status = (): ServerDbStatus | undefined => {
    const row = cache.lookup('Database', 'name', db)[0];
    if (row === undefined) return undefined;
    return {
      name: db,
      model: String(row.model),
      connected: row.connected === true,
      leader: row.leader === true,
      index: typeof row.index === 'number' ? row.index : undefined,
    };
  };
  let ready = false;
  await client.monitorCond(
    SERVER_DB,
    'kovn-server-db',
    { Database: [{ columns, where: [{ column: 'name', function: '==', value: db }] }] },
    (e) => {
      cache.apply(e);
      if (ready) onChange(status());
    },
  );
  ready = true;
  return status();
}
