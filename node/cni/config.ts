/**
 * The network configuration a runtime writes on stdin (SPEC.md section 1 and
 * "Deriving request configuration"): decoded (code 6), checked (code 7, or 2
 * for a well-known field kovn does not act on), its `cniVersion` checked
 * against the command (code 1). Keys of Kube-OVN's plugin kept: `server_socket`
 * and `provider`. Ours: `pod_namespace`, the namespace of the pods this network
 * wires when the runtime's CNI_ARGS names only the pod (podman 4.3 sends
 * `K8S_POD_NAME=<container name>` and no K8S_POD_NAMESPACE; kubelet sends both,
 * and then CNI_ARGS wins).
 */
import { isAbsolute } from 'node:path';
import { CNI_NAME } from './env.ts';
import { accept, type Checked, type CniProblem, refuse } from './problem.ts';
import { CNI_ERROR, type CniAttachment, type CniDns, type CniResult, DEFAULT_DAEMON_SOCKET } from './protocol.ts';
import { decodeResult } from './result.ts';
import { checkVersion, type CniCommand } from './version.ts';

/** The provider of kovn's default network (Kube-OVN's `ovn`). */
export const DEFAULT_PROVIDER = 'ovn';

export interface NetConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly type: string;
  /** `server_socket`: the daemon's unix socket. */
  readonly serverSocket: string;
  readonly provider: string;
  /** `pod_namespace`: the pod's namespace when CNI_ARGS has no K8S_POD_NAMESPACE. */
  readonly podNamespace?: string;
  readonly prevResult?: CniResult;
  readonly runtimeConfig?: Readonly<Record<string, unknown>>;
  /** The config's `dns`, reported in the ADD result when the daemon gives none. */
  readonly dns?: CniDns;
  /** GC: `cni.dev/valid-attachments`. */
  readonly validAttachments?: readonly CniAttachment[];
}

/** A parsed config and what was read but not used (printed on stderr). */
export interface ParsedConf {
  readonly conf: NetConf;
  readonly warnings: readonly string[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const bad = (key: string, msg: string, details?: string): CniProblem => ({
  code: CNI_ERROR.invalidConfig,
  path: `config.${key}`,
  msg,
  ...(details !== undefined ? { details } : {}),
});

/**
 * Decodes stdin into an object and reads its `cniVersion` (absent is 0.1.0,
 * as libcni reads it), without judging the version: an error body needs the
 * version even when the rest of the config is bad.
 *
 * @example
 * decodeConfig('{"cniVersion":"1.0.0","name":"n","type":"kovn"}') // ok, {json, cniVersion: '1.0.0'}
 * decodeConfig('not json').ok // false: code 6
 */
export function decodeConfig(text: string): Checked<{ json: Json; cniVersion: string }> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const why = text.trim() === '' ? 'stdin is empty' : (e as Error).message;
    return refuse({ code: CNI_ERROR.decodeFailure, path: 'stdin', msg: `network config is not JSON: ${why}` });
  }
  if (!isObject(json))
    return refuse({ code: CNI_ERROR.decodeFailure, path: 'stdin', msg: 'network config must be a JSON object' });
  const v = json.cniVersion ?? '0.1.0';
  if (typeof v !== 'string')
    return refuse({ code: CNI_ERROR.decodeFailure, path: 'config.cniVersion', msg: 'cniVersion must be a string' });
  return accept({ json, cniVersion: v });
}

/**
 * Checks a decoded config for a command. For CHECK `prevResult` is required;
 * for GC `cni.dev/valid-attachments` (a missing list would let GC remove
 * every attachment); on DEL an undecodable `prevResult` is dropped with a
 * warning (DEL is best-effort).
 *
 * @example
 * checkConfig({cniVersion: '1.1.0', name: 'kovn', type: 'kovn'}, '1.1.0', 'ADD')
 * // {ok: true, value: {conf: {cniVersion: '1.1.0', name: 'kovn', type: 'kovn', serverSocket: '/run/kovn/daemon.sock', provider: 'ovn'}, warnings: []}}
 */
export function checkConfig(json: Json, cniVersion: string, command: CniCommand): Checked<ParsedConf> {
  const head = checkHead(json);
  if (head) return refuse(head);
  const version = checkVersion(cniVersion, command);
  if (version) return refuse(version);
  const warnings: string[] = [];
  const unsupported = unsupportedField(json);
  // DEL undoes what an ADD may have done, so a field ADD refuses does not block it.
  if (unsupported && command === 'DEL') warnings.push(`${unsupported.msg}: ignored on DEL`);
  else if (unsupported) return refuse(unsupported);
  const socket = json.server_socket ?? DEFAULT_DAEMON_SOCKET;
  if (typeof socket !== 'string' || !isAbsolute(socket))
    return refuse(bad('server_socket', `server_socket must be an absolute path, got ${JSON.stringify(socket)}`));
  const provider = json.provider ?? DEFAULT_PROVIDER;
  if (typeof provider !== 'string' || provider === '')
    return refuse(bad('provider', `provider must be a non-empty string, got ${JSON.stringify(provider)}`));
  const podNamespace = json.pod_namespace;
  if (podNamespace !== undefined && (typeof podNamespace !== 'string' || podNamespace === ''))
    return refuse(
      bad('pod_namespace', `pod_namespace must be a non-empty string, got ${JSON.stringify(podNamespace)}`),
    );
  if (json.runtimeConfig !== undefined && !isObject(json.runtimeConfig))
    return refuse(bad('runtimeConfig', 'runtimeConfig must be an object'));
  const dns = checkDns(json.dns, cniVersion);
  if (!dns.ok) return dns;
  const prev = checkPrevResult(json, cniVersion, command, warnings);
  if (!prev.ok) return prev;
  const attachments = command === 'GC' ? checkAttachments(json['cni.dev/valid-attachments']) : accept(undefined);
  if (!attachments.ok) return attachments;
  const conf: NetConf = {
    cniVersion,
    name: json.name as string,
    type: json.type as string,
    serverSocket: socket,
    provider,
    ...(podNamespace !== undefined ? { podNamespace } : {}),
    ...(prev.value ? { prevResult: prev.value } : {}),
    ...(json.runtimeConfig !== undefined ? { runtimeConfig: json.runtimeConfig as Json } : {}),
    ...(dns.value ? { dns: dns.value } : {}),
    ...(attachments.value ? { validAttachments: attachments.value } : {}),
  };
  return accept({ conf, warnings });
}

function checkHead(json: Json): CniProblem | undefined {
  const { name, type } = json;
  if (name === undefined || name === '') return bad('name', 'network config has no name');
  if (typeof name !== 'string' || !CNI_NAME.test(name))
    return bad(
      'name',
      `network name ${JSON.stringify(name)} has invalid characters`,
      'a name starts with a letter or digit, then letters, digits, _ . -',
    );
  if (typeof type !== 'string' || type === '') return bad('type', `network ${name} has no plugin type`);
  return undefined;
}

/** Well-known keys (SPEC.md section 1) whose meaning kovn does not implement: refused, not ignored. */
function unsupportedField(json: Json): CniProblem | undefined {
  const ipam = json.ipam;
  if (ipam !== undefined && !(isObject(ipam) && Object.keys(ipam).length === 0))
    return {
      code: CNI_ERROR.unsupportedField,
      path: 'config.ipam',
      msg: `unsupported field ipam=${JSON.stringify(ipam)}`,
      details: "kovn's addresses come from the pod's annotations (the controller's IPAM); remove the ipam section",
    };
  if (json.ipMasq !== undefined && json.ipMasq !== false)
    return {
      code: CNI_ERROR.unsupportedField,
      path: 'config.ipMasq',
      msg: `unsupported field ipMasq=${JSON.stringify(json.ipMasq)}`,
      details: 'kovn does SNAT in OVN (a subnet with natOutgoing), not on the host',
    };
  return unsupportedCapability(json.runtimeConfig);
}

/**
 * A runtime puts in `runtimeConfig` only the capabilities the conflist declares
 * for this plugin (SPEC.md "Deriving runtimeConfig"); kovn acts on none (a
 * pod's addresses, MAC and bandwidth come from its annotations), so one with a
 * value would be silently ignored. Empty values (`portMappings: []`) say nothing.
 */
function unsupportedCapability(rc: unknown): CniProblem | undefined {
  if (!isObject(rc)) return undefined;
  const empty = (v: unknown) =>
    v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
  const used = Object.entries(rc).find(([, v]) => !empty(v));
  if (!used) return undefined;
  const value = JSON.stringify(used[1]);
  return {
    code: CNI_ERROR.unsupportedField,
    path: `config.runtimeConfig.${used[0]}`,
    msg: `unsupported field runtimeConfig.${used[0]}=${value.length > 200 ? `${value.slice(0, 200)}...` : value}`,
    details:
      "kovn acts on no capability (addresses, MAC and bandwidth come from the pod's annotations); remove it from the plugin's capabilities",
  };
}

function checkDns(dns: unknown, cniVersion: string): Checked<CniDns | undefined> {
  if (dns === undefined) return accept(undefined);
  // The result decoder checks the same four fields; reuse it on a result holding only `dns`.
  const r = decodeResult({ dns }, cniVersion, 'config');
  if (!r.ok) return refuse({ ...r.problem, code: CNI_ERROR.invalidConfig });
  return accept(r.value.dns);
}

function checkPrevResult(
  json: Json,
  cniVersion: string,
  command: CniCommand,
  warnings: string[],
): Checked<CniResult | undefined> {
  const raw = json.prevResult;
  if (raw === undefined) {
    if (command === 'CHECK')
      return refuse(bad('prevResult', 'CHECK needs prevResult', 'the runtime passes the result of the ADD'));
    return accept(undefined);
  }
  if (command !== 'ADD' && command !== 'CHECK' && command !== 'DEL') return accept(undefined);
  const r = decodeResult(raw, cniVersion, 'config.prevResult');
  if (r.ok) return r;
  if (command === 'DEL') {
    warnings.push(`${r.problem.msg}: ignored, DEL goes on without it`);
    return accept(undefined);
  }
  return r;
}

function checkAttachments(raw: unknown): Checked<readonly CniAttachment[] | undefined> {
  const key = 'cni.dev/valid-attachments';
  if (raw === undefined)
    return refuse(bad(key, `GC needs ${key}`, 'without the list of attachments to keep, GC would remove all of them'));
  if (!Array.isArray(raw)) return refuse(bad(key, `${key} must be a list`));
  const out: CniAttachment[] = [];
  for (const [i, a] of raw.entries()) {
    if (!isObject(a) || typeof a.containerID !== 'string' || typeof a.ifname !== 'string')
      return refuse(bad(`${key}[${i}]`, `${key}[${i}] must be {containerID: string, ifname: string}`));
    out.push({ containerId: a.containerID, ifName: a.ifname });
  }
  return accept(out);
}
