/**
 * The CNI plugin's logic, with its I/O passed in: the environment, stdin and
 * the call to the daemon. VERSION is answered here; ADD, DEL, CHECK, STATUS
 * and GC are checked here and forwarded to the daemon (node/cni/protocol.ts).
 * The outcome is what the process prints and its exit status (SPEC.md: the
 * result or the error body on stdout, logs on stderr).
 */
import { DaemonCallError, type DaemonCall } from './client.ts';
import { checkConfig, decodeConfig, type NetConf } from './config.ts';
import { type CniEnv, parseEnv } from './env.ts';
import { type CniProblem, errorBody } from './problem.ts';
import {
  CNI_ERROR,
  type CniErrorBody,
  type CniResult,
  type DaemonCommand,
  type DaemonRequest,
  SUPPORTED_CNI_VERSIONS,
} from './protocol.ts';
import { chainResult, decodeResult, encodeResult } from './result.ts';
import { CURRENT_CNI_VERSION } from './version.ts';

export interface PluginIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The whole of stdin; a rejection is an I/O failure (code 5). */
  readonly readStdin: () => Promise<string>;
  readonly call: DaemonCall;
}

export interface PluginOutcome {
  readonly exitCode: 0 | 1;
  readonly stdout: string;
  readonly stderr: string;
}

const PREFIX = 'kovn-cni';

const succeed = (stdout = '', warnings: readonly string[] = []): PluginOutcome => ({
  exitCode: 0,
  stdout,
  stderr: warnings.map((w) => `${PREFIX}: ${w}\n`).join(''),
});

const fail = (body: CniErrorBody, warnings: readonly string[] = []): PluginOutcome => ({
  exitCode: 1,
  stdout: `${JSON.stringify(body)}\n`,
  stderr: [...warnings, `${body.msg}${body.details ? ` (${body.details})` : ''}`]
    .map((w) => `${PREFIX}: ${w}\n`)
    .join(''),
});

const supported = (v: string) => (SUPPORTED_CNI_VERSIONS as readonly string[]).includes(v);

/**
 * Runs one plugin invocation.
 *
 * @example
 * const out = await runPlugin({env: {CNI_COMMAND: 'VERSION'}, readStdin: async () => '{"cniVersion":"1.0.0"}', call});
 * // out.stdout: {"cniVersion":"1.0.0","supportedVersions":["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}
 */
export async function runPlugin(io: PluginIo): Promise<PluginOutcome> {
  const env = parseEnv(io.env);
  if (!env.ok) return fail(errorBody(env.problem, CURRENT_CNI_VERSION));
  let stdin: string;
  try {
    stdin = await io.readStdin();
  } catch (e) {
    const problem = { code: CNI_ERROR.ioFailure, path: 'stdin', msg: `cannot read stdin: ${(e as Error).message}` };
    return fail(errorBody(problem, CURRENT_CNI_VERSION));
  }
  if (env.value.command === 'VERSION') return answerVersion(stdin);
  const decoded = decodeConfig(stdin);
  if (!decoded.ok) return fail(errorBody(decoded.problem, CURRENT_CNI_VERSION));
  const version = supported(decoded.value.cniVersion) ? decoded.value.cniVersion : CURRENT_CNI_VERSION;
  const checked = checkConfig(decoded.value.json, decoded.value.cniVersion, env.value.command);
  if (!checked.ok) return fail(errorBody(checked.problem, version));
  const { conf, warnings } = checked.value;
  const request = daemonRequest(env.value, conf);
  if (!request.ok) return fail(errorBody(request.problem, version), warnings);
  return forward(io.call, request.value, conf, warnings);
}

/** VERSION: `cniVersion` echoes the input's (SPEC.md), the current version when stdin names none. */
function answerVersion(stdin: string): PluginOutcome {
  const decoded = decodeConfig(stdin);
  const asked = decoded.ok && typeof decoded.value.json.cniVersion === 'string' ? decoded.value.json.cniVersion : '';
  const cniVersion = asked === '' ? CURRENT_CNI_VERSION : asked;
  return succeed(`${JSON.stringify({ cniVersion, supportedVersions: SUPPORTED_CNI_VERSIONS })}\n`);
}

type Built = { ok: true; value: DaemonRequest } | { ok: false; problem: CniProblem };

function daemonRequest(env: CniEnv, conf: NetConf): Built {
  const podName = env.args.get('K8S_POD_NAME') ?? '';
  const podNamespace = env.args.get('K8S_POD_NAMESPACE') ?? conf.podNamespace ?? '';
  // ADD and CHECK find the pod by name; DEL, STATUS and GC can do without (the daemon knows the container).
  if ((env.command === 'ADD' || env.command === 'CHECK') && (podName === '' || podNamespace === ''))
    return {
      ok: false,
      problem: {
        code: CNI_ERROR.invalidEnvironment,
        path: 'env.CNI_ARGS',
        msg: `CNI_ARGS lacks ${podName === '' ? 'K8S_POD_NAME' : 'K8S_POD_NAMESPACE'}`,
        details:
          'kovn wires a Kubernetes pod: the runtime names it in CNI_ARGS (K8S_POD_NAME, K8S_POD_NAMESPACE); a runtime that names only the pod needs pod_namespace in the network config',
      },
    };
  const value: DaemonRequest = {
    command: env.command as DaemonCommand,
    cniVersion: conf.cniVersion,
    network: conf.name,
    containerId: env.containerId,
    netns: env.netns,
    ifName: env.ifName,
    podName,
    podNamespace,
    provider: conf.provider,
    ...(conf.prevResult ? { prevResult: conf.prevResult } : {}),
    ...(conf.validAttachments ? { validAttachments: conf.validAttachments } : {}),
    ...(conf.runtimeConfig ? { runtimeConfig: conf.runtimeConfig } : {}),
  };
  return { ok: true, value };
}

async function forward(
  call: DaemonCall,
  request: DaemonRequest,
  conf: NetConf,
  warnings: readonly string[],
): Promise<PluginOutcome> {
  const version = conf.cniVersion;
  let response: Awaited<ReturnType<DaemonCall>>;
  try {
    response = await call(conf.serverSocket, request);
  } catch (e) {
    if (!(e instanceof DaemonCallError)) {
      const msg = `${request.command} failed talking to the daemon: ${(e as Error).message}`;
      return fail(errorBody({ code: CNI_ERROR.ioFailure, path: 'daemon', msg }, version), warnings);
    }
    if (e.code === 'UNREACHABLE' && request.command === 'DEL')
      return succeed('', [
        ...warnings,
        `DEL of ${request.containerId}/${request.ifName}: ${e.message}; nothing done here, the daemon removes ` +
          'what belongs to gone pods when it starts, and GC removes the rest',
      ]);
    return fail(errorBody(callProblem(e, request.command), version), warnings);
  }
  if (!response.ok) return fail({ ...response.error, cniVersion: version }, warnings);
  if (request.command !== 'ADD') return succeed('', warnings);
  const own = decodeResult(response.result, version, 'daemon result');
  if (!own.ok)
    return fail(
      errorBody({ ...own.problem, msg: `the daemon's ADD result is unusable: ${own.problem.msg}` }, version),
      warnings,
    );
  const result: CniResult = own.value.dns === undefined && conf.dns ? { ...own.value, dns: conf.dns } : own.value;
  const out = conf.prevResult ? chainResult(conf.prevResult, result) : result;
  return succeed(`${JSON.stringify(encodeResult(out, version))}\n`, warnings);
}

function callProblem(e: DaemonCallError, command: DaemonCommand): CniProblem {
  const path = 'daemon';
  if (e.code === 'BAD_RESPONSE') return { code: CNI_ERROR.decodeFailure, path, msg: e.message };
  if (e.code === 'UNREACHABLE')
    return {
      code: command === 'STATUS' ? CNI_ERROR.notAvailable : CNI_ERROR.tryAgainLater,
      path,
      msg: e.message,
      details: "is `kovn daemon` running on this node, and does the config's server_socket name its socket?",
    };
  return { code: CNI_ERROR.tryAgainLater, path, msg: `${command} not answered: ${e.message}` };
}
