/**
 * The local Open_vSwitch database (conf.db) as the node agent sees it: one
 * OvsdbSession caching the tables of backends/ovn/vswitch's descriptions
 * (only the columns they name: vswitchd rewrites `statistics` and `status`
 * every few seconds, and caching them would wake every waiter for nothing), and
 * transactions that can wait, as `ovs-vsctl` does without `--no-wait`, until
 * ovs-vswitchd has applied them: the transaction increments the root row's
 * `next_cfg`, and vswitchd copies it to `cur_cfg` once it has reconfigured.
 */
import {
  type Operation,
  OvsdbSession,
  type ResultsOf,
  type Timers,
  systemTimers,
  type vswitch,
} from '../../backends/ovn/ovsdb/index.ts';
import { OVS_INDEXES, OVS_MONITOR } from '../../backends/ovn/vswitch/index.ts';
import { OvsError } from './errors.ts';

/** The tables and columns cached: those the descriptions say kovn writes, and what vswitchd reports back. */
const TABLES = OVS_MONITOR;

/** The descriptions' name indexes, and interfaces by the logical port they are bound to. */
const INDEXES = { ...OVS_INDEXES, Interface: [...(OVS_INDEXES.Interface ?? []), 'external_ids:iface-id'] };

export interface VswitchOptions {
  /** `unix:<conf.db socket>` (e.g. `unix:/var/run/openvswitch/db.sock`). */
  readonly remote: string;
  /** Default 30 s. */
  readonly openTimeoutMs?: number;
  readonly timers?: Timers;
}

export interface CommitOptions {
  /** Wait until ovs-vswitchd has applied the transaction (`cur_cfg`); default false. */
  readonly waitApplied?: boolean;
  /** Bound of that wait; default 30 s. */
  readonly timeoutMs?: number;
}

export interface BridgeSpec {
  readonly name: string;
  readonly failMode?: 'standalone' | 'secure';
  readonly otherConfig?: Readonly<Record<string, string>>;
}

/**
 * @example
 * const vs = await Vswitch.open({ remote: 'unix:/run/openvswitch/db.sock' });
 * await vs.ensureBridge({ name: 'br-int', failMode: 'secure' });
 * await vs.setRootExternalIds({ 'ovn-bridge-mappings': 'physnet:br-ex' });
 * vs.close();
 */
export class Vswitch {
  #names = 0;

  private constructor(
    readonly session: OvsdbSession<vswitch.Tables>,
    readonly timers: Timers,
  ) {}

  static async open(opts: VswitchOptions): Promise<Vswitch> {
    const timers = opts.timers ?? systemTimers;
    const session = await OvsdbSession.open<vswitch.Tables>({
      remotes: opts.remote,
      db: 'Open_vSwitch',
      tables: TABLES,
      indexes: INDEXES,
      timers,
      openTimeoutMs: opts.openTimeoutMs ?? 30_000,
    });
    return new Vswitch(session, timers);
  }

  /** A uuid-name no other operation of this client uses (several builders' operations may share a transaction). */
  uuidName(prefix: string): string {
    return `${prefix}${this.#names++}`;
  }

  get cache() {
    return this.session.cache;
  }

  get ops() {
    return this.session.ops;
  }

  /** The root row; throws `no-root` when the database was never initialized. */
  root(): vswitch.OpenVSwitch {
    const [row] = this.cache.rows('Open_vSwitch');
    if (row === undefined) throw new OvsError('no-root', 'Open_vSwitch: the database has no root row');
    return row;
  }

  bridge(name: string): vswitch.Bridge | undefined {
    return this.cache.lookup('Bridge', 'name', name)[0];
  }

  /**
   * Runs `ops` as one transaction; with `waitApplied`, also bumps `next_cfg`
   * and resolves once vswitchd reports it in `cur_cfg` (`not-applied` after
   * `timeoutMs`).
   */
  async commit<const Ops extends readonly Operation[]>(ops: Ops, opts: CommitOptions = {}): Promise<ResultsOf<Ops>> {
    if (!opts.waitApplied) return this.session.transact(ops);
    const root = this.root();
    const bump = this.ops.mutate('Open_vSwitch', [this.ops.whereUuid(root._uuid)], [['next_cfg', '+=', 1]]);
    const results = await this.session.transact([...ops, bump]);
    // Read-your-writes: the cache shows our next_cfg (or a later writer's, which covers ours).
    const target = this.root().next_cfg;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    try {
      await this.cache.waitFor(() => this.root().cur_cfg >= target, {
        timeoutMs,
        timers: this.timers,
        what: `cur_cfg ${target}`,
      });
    } catch (e) {
      throw new OvsError(
        'not-applied',
        `Open_vSwitch: vswitchd did not apply next_cfg ${target} within ${timeoutMs} ms`,
        {
          cause: e,
        },
      );
    }
    return results.slice(0, ops.length) as unknown as ResultsOf<Ops>;
  }

  /**
   * Operations that create the bridge (with its internal port, as
   * `ovs-vsctl add-br` does) if it does not exist, and set its fail mode and
   * other_config keys either way.
   */
  ensureBridgeOps(spec: BridgeSpec): Operation[] {
    const b = this.ops;
    const have = this.bridge(spec.name);
    const settings = {
      ...(spec.failMode === undefined ? {} : { fail_mode: spec.failMode }),
      ...(spec.otherConfig === undefined
        ? {}
        : { other_config: { ...(have?.other_config ?? {}), ...spec.otherConfig } }),
    };
    if (have !== undefined)
      return Object.keys(settings).length ? [b.update('Bridge', [b.whereUuid(have._uuid)], settings)] : [];
    const root = this.root();
    const [iface, port, bridge] = [this.uuidName('iface'), this.uuidName('port'), this.uuidName('bridge')];
    return [
      b.insert('Interface', { name: spec.name, type: 'internal' }, { uuidName: iface }),
      b.insert('Port', { name: spec.name, interfaces: [iface] }, { uuidName: port }),
      b.insert('Bridge', { name: spec.name, ports: [port], ...settings }, { uuidName: bridge }),
      b.mutate('Open_vSwitch', [b.whereUuid(root._uuid)], [['bridges', 'insert', [bridge]]]),
    ];
  }

  async ensureBridge(spec: BridgeSpec, opts: CommitOptions = {}): Promise<void> {
    const ops = this.ensureBridgeOps(spec);
    if (ops.length) await this.commit(ops, opts);
  }

  /** Sets keys of the root row's external_ids (ovn-remote, system-id, ovn-bridge-mappings, ...), keeping the others. */
  setRootExternalIdsOps(ids: Readonly<Record<string, string>>): Operation[] {
    const b = this.ops;
    const where = [b.whereUuid(this.root()._uuid)];
    // A map insert keeps an existing key's value: delete the keys first.
    return [
      b.mutate('Open_vSwitch', where, [['external_ids', 'delete', Object.keys(ids)]]),
      b.mutate('Open_vSwitch', where, [['external_ids', 'insert', ids]]),
    ];
  }

  async setRootExternalIds(ids: Readonly<Record<string, string>>, opts: CommitOptions = {}): Promise<void> {
    await this.commit(this.setRootExternalIdsOps(ids), opts);
  }

  close(): void {
    this.session.close();
  }
}
