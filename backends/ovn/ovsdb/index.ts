/**
 * backends/ovn/ovsdb: kovn's own OVSDB client (RFC 7047 plus the
 * ovsdb-server(7) extensions), layered as a strict import DAG:
 *
 *   wire/ (RFC 7047 types, parse/emit)  ←  framing  ←  rpc  ←  transport  ←  client
 *   build (operations from native rows) ·  replay (is a retry safe?)
 *   cache (monitor-fed rows, indexes)  ←  cluster (_Server leader)  ←  session (reconnect, resync, queue)
 *   schema/ (generated row types)
 *
 * Building operations (OpBuilder) is separate from sending them
 * (OvsdbClient.transact / OvsdbSession.transact).
 */
export * from './wire/index.ts';
export { JsonSplitter, type JsonSplitterOptions } from './framing.ts';
export { ManualTimers, systemTimers, type TimerHandle, type Timers } from './timers.ts';
export {
  RpcConnection,
  type CloseHandler,
  type NotificationHandler,
  type RequestOptions,
  type RpcConnectionOptions,
} from './rpc.ts';
export {
  DEFAULT_OVSDB_PORT,
  connectRemote,
  formatRemote,
  parseRemote,
  parseRemotes,
  readTlsFiles,
  type ConnectOptions,
  type Remote,
  type TlsCredentials,
} from './transport.ts';
export {
  OvsdbClient,
  type LockEvent,
  type MonitorEvent,
  type MonitorHandler,
  type OvsdbClientOptions,
  type TransactOptions,
} from './client.ts';
export {
  OpBuilder,
  type ColumnOf,
  type GenericRow,
  type GenericTables,
  type NativeCondition,
  type NativeMutation,
  type RowInput,
  type UniqueSpec,
  type WaitOptions,
} from './build.ts';
export { replayVerdict, type ReplayVerdict } from './replay.ts';
export { OvsdbCache, applyDiff, rowEquals, type CacheOptions, type CacheRow, type RowChange } from './cache.ts';
export {
  OvsdbUnsuitableServerError,
  SERVER_DB,
  suitability,
  watchServerDb,
  type ServerDbStatus,
  type Suitability,
} from './cluster.ts';
export {
  OvsdbSession,
  isReplayedDuplicate,
  type SessionOptions,
  type SessionState,
  type SessionStats,
  type SessionTransactOptions,
} from './session.ts';
export { nb, sb, vswitch } from './schema/index.ts';
