/**
 * `ovn-nbctl --wait=sb sync`: make northd acknowledge everything written so
 * far. Bump `NB_Global.nb_cfg`, then wait until northd copies it to
 * `sb_cfg`, which it does after it has brought the SB in line with an NB
 * state that includes the bump, hence every write committed before it.
 *
 * The bump is `wait nb_cfg == N` + `update nb_cfg = N+1` rather than a `+=`
 * mutation: replayable (no arithmetic), and committed strictly after our
 * earlier writes. If anyone else bumped meanwhile the wait fails and we try
 * again with the new value; a replay whose guard failed means the first
 * attempt committed, which a fresh look at the cache confirms. NB_Global is
 * created when missing, as ovn-nbctl does.
 */
import {
  type OvsdbSession,
  OvsdbConstraintViolationError,
  OvsdbTimedOutError,
  type Timers,
  type nb,
  systemTimers,
} from '../ovsdb/index.ts';
import { OvnBackendError } from './errors.ts';

export interface WaitForNorthdOptions {
  /** Default 30 s. */
  readonly timeoutMs?: number;
  /**
   * 'sb' (default): northd brought the SB in line (`sb_cfg`). 'hv': every
   * chassis' ovn-controller has also installed the flows (`hv_cfg`, as
   * `ovn-nbctl --wait=hv`); with no chassis that is the same as 'sb'.
   */
  readonly until?: 'sb' | 'hv';
  readonly timers?: Timers;
}

/**
 * @example await waitForNorthd(session, { timeoutMs: 10_000 }) // the nb_cfg northd reached
 */
export async function waitForNorthd(
  session: OvsdbSession<nb.Tables>,
  opts: WaitForNorthdOptions = {},
): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const target = await bump(session);
  const global = () => session.cache.rows('NB_Global')[0];
  const column = opts.until === 'hv' ? 'hv_cfg' : 'sb_cfg';
  try {
    await session.cache.waitFor(() => (global()?.[column] ?? -Infinity) >= target, {
      timeoutMs,
      timers: opts.timers ?? systemTimers,
      what: `NB_Global.${column} >= ${target}`,
    });
  } catch (e) {
    throw new OvnBackendError(
      'northd-timeout',
      `${column === 'hv_cfg' ? 'the chassis' : 'northd'} did not reach nb_cfg ${target} within ${timeoutMs} ms (${column} is ${global()?.[column]}; is ${column === 'hv_cfg' ? 'ovn-controller' : 'ovn-northd'} running?)`,
      { nbTable: 'NB_Global' },
      { cause: e },
    );
  }
  return target;
}

const ATTEMPTS = 20;

async function bump(session: OvsdbSession<nb.Tables>): Promise<number> {
  const b = session.ops;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    await session.waitSynced(60_000);
    const row = session.cache.rows('NB_Global')[0];
    if (row === undefined) {
      // Racing northd (or another client) creating it gives a constraint violation (at most one row): look again.
      await session.transact([b.insert('NB_Global', {})], { retry: 'never' }).catch((e: unknown) => {
        if (!(e instanceof OvsdbConstraintViolationError) && !isUnknownOutcome(e)) throw e;
      });
      continue;
    }
    const next = row.nb_cfg + 1;
    try {
      await session.transact([
        b.wait('NB_Global', [b.whereUuid(row._uuid)], {
          until: '==',
          rows: [{ nb_cfg: row.nb_cfg }],
          columns: ['nb_cfg'],
          timeout: 0,
        }),
        b.update('NB_Global', [b.whereUuid(row._uuid)], { nb_cfg: next }),
      ]);
      return next;
    } catch (e) {
      if (!(e instanceof OvsdbTimedOutError)) throw e;
      // Someone bumped it (or our replay found our own bump): the cache shows the value now in NB.
      const now = session.cache.rows('NB_Global')[0]?.nb_cfg ?? 0;
      if (e.replayed && now >= next) return now;
    }
  }
  throw new OvnBackendError(
    'northd-timeout',
    `could not bump NB_Global.nb_cfg in ${ATTEMPTS} attempts (other clients keep bumping it)`,
    { nbTable: 'NB_Global' },
  );
}

function isUnknownOutcome(e: unknown): boolean {
  return e instanceof Error && 'maybeCommitted' in e;
}
