/**
 * node/cni: the CNI plugin (SPEC.md 1.0/1.1: ADD, DEL, CHECK, STATUS, GC,
 * VERSION), a thin client of the node daemon over a unix socket
 * (protocol.ts): the environment (env.ts) and the config on stdin (config.ts)
 * checked with the spec's error codes, results across versions (result.ts),
 * the call (client.ts), the logic with its I/O passed in (plugin.ts), the
 * process around it (run.ts; main.ts is the bundled executable's entry).
 */
export { DaemonCallError, callDaemon, parseResponse, type DaemonCall, type DaemonCallErrorCode } from './client.ts';
export { DEFAULT_PROVIDER, checkConfig, decodeConfig, type NetConf, type ParsedConf } from './config.ts';
export { CNI_NAME, interfaceNameProblem, parseCniArgs, parseEnv, type CniEnv } from './env.ts';
export { runPlugin, type PluginIo, type PluginOutcome } from './plugin.ts';
export { errorBody, type Checked, type CniProblem } from './problem.ts';
export * from './protocol.ts';
export { chainResult, decodeResult, encodeResult, isCidr } from './result.ts';
export { DAEMON_CALL_TIMEOUT_MS, readProcessStdin, runCniProcess } from './run.ts';
export { CURRENT_CNI_VERSION, checkVersion, compareVersions, parseVersion, type CniCommand } from './version.ts';
