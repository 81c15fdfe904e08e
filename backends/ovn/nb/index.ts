/**
 * backends/ovn/nb: the model's topology on the OVN Northbound database.
 * `OvnBackend` applies plans (batched transactions, every row tagged
 * `external_ids:vendor=kovn`, foreign rows never touched, non-root rows
 * inserted together with their parent's reference) and reads back kovn's
 * rows from the session cache. The table mapping lives in tables.ts and
 * columns.ts; plan operations become OVSDB operations in ops.ts.
 */
export { OvnBackend, DEFAULT_MAX_OPS_PER_TRANSACTION, type OvnApplyResult, type OvnBackendOptions } from './backend.ts';
export { OvnBackendError, type OvnBackendErrorCode, type ErrorSite } from './errors.ts';
export { waitForNorthd, type WaitForNorthdOptions } from './northd.ts';
export { NB_TABLE, VENDOR, VENDOR_KEY, KEY_ID, NAME_ID, isOwned } from './tables.ts';
