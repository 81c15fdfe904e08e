/**
 * The CNI_* environment (SPEC.md section 2, "Parameters"): which variables
 * each command requires, and the spec's rules for container ids and
 * interface names. Every refusal is code 4 and names the variables.
 */
import { CNI_ERROR } from './protocol.ts';
import { accept, type Checked, refuse } from './problem.ts';
import type { CniCommand } from './version.ts';

export interface CniEnv {
  readonly command: CniCommand;
  /** CNI_CONTAINERID; '' when the command does not take one (STATUS, GC, VERSION). */
  readonly containerId: string;
  /** CNI_NETNS; may be '' on DEL. */
  readonly netns: string;
  readonly ifName: string;
  /** CNI_ARGS as key/value pairs, e.g. K8S_POD_NAME. */
  readonly args: ReadonlyMap<string, string>;
  /** CNI_PATH (kovn delegates to no plugin; GC requires it by the spec). */
  readonly path: string;
}

const COMMANDS: readonly CniCommand[] = ['ADD', 'DEL', 'CHECK', 'STATUS', 'GC', 'VERSION'];

/** The variables each command requires (SPEC.md 1.1.0; CNI_ARGS is optional for all). */
const REQUIRED: Readonly<Record<CniCommand, readonly string[]>> = {
  ADD: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME'],
  CHECK: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME'],
  DEL: ['CNI_CONTAINERID', 'CNI_IFNAME'],
  GC: ['CNI_PATH'],
  STATUS: [],
  VERSION: [],
};

/** SPEC.md: starts with an alphanumeric, then alphanumerics, `_`, `.` or `-` (container ids and network names). */
export const CNI_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

type Env = Readonly<Record<string, string | undefined>>;

const invalid = (names: string, msg: string, details?: string) =>
  refuse({
    code: CNI_ERROR.invalidEnvironment,
    path: `env.${names}`,
    msg,
    ...(details !== undefined ? { details } : {}),
  });

/**
 * Reads and checks the CNI_* variables for the command CNI_COMMAND names.
 *
 * @example
 * parseEnv({CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'c1', CNI_IFNAME: 'eth0'})
 * // {ok: true, value: {command: 'DEL', containerId: 'c1', netns: '', ifName: 'eth0', args: Map{}, path: ''}}
 * parseEnv({CNI_COMMAND: 'ADD'}).ok // false: code 4, 'required env variables missing: CNI_CONTAINERID, ...'
 */
export function parseEnv(env: Env): Checked<CniEnv> {
  const command = env.CNI_COMMAND ?? '';
  if (command === '') return invalid('CNI_COMMAND', 'required env variable missing: CNI_COMMAND');
  if (!(COMMANDS as readonly string[]).includes(command))
    return invalid('CNI_COMMAND', `unknown CNI_COMMAND ${JSON.stringify(command)}`, `expected ${COMMANDS.join(', ')}`);
  const cmd = command as CniCommand;
  const missing = REQUIRED[cmd].filter((name) => (env[name] ?? '') === '');
  if (missing.length > 0)
    return invalid(missing.join(','), `required env variables missing for ${cmd}: ${missing.join(', ')}`);
  const takesAttachment = cmd === 'ADD' || cmd === 'DEL' || cmd === 'CHECK';
  const containerId = takesAttachment ? (env.CNI_CONTAINERID ?? '') : '';
  const ifName = takesAttachment ? (env.CNI_IFNAME ?? '') : '';
  if (takesAttachment && !CNI_NAME.test(containerId))
    return invalid(
      'CNI_CONTAINERID',
      `CNI_CONTAINERID ${JSON.stringify(containerId)} has invalid characters`,
      'a container id starts with a letter or digit, then letters, digits, _ . -',
    );
  const ifProblem = takesAttachment ? interfaceNameProblem(ifName) : undefined;
  if (ifProblem) return invalid('CNI_IFNAME', `CNI_IFNAME ${JSON.stringify(ifName)} ${ifProblem}`);
  const args = parseCniArgs(env.CNI_ARGS ?? '');
  if (!args.ok) return args;
  return accept({
    command: cmd,
    containerId,
    netns: takesAttachment ? (env.CNI_NETNS ?? '') : '',
    ifName,
    args: args.value,
    path: env.CNI_PATH ?? '',
  });
}

/**
 * Why a name cannot be a Linux interface name as the spec restricts it, or undefined.
 *
 * @example
 * interfaceNameProblem('eth0') // undefined
 * interfaceNameProblem('a/b') // 'contains / or : or whitespace'
 */
export function interfaceNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (Buffer.byteLength(name) > 15) return 'is longer than 15 bytes';
  if (name === '.' || name === '..') return 'is . or ..';
  if (/[/:\s]/u.test(name)) return 'contains / or : or whitespace';
  return undefined;
}

/**
 * CNI_ARGS: `KEY=VALUE` pairs separated by semicolons (empty pairs skipped;
 * a value may itself contain `=`).
 *
 * @example
 * parseCniArgs('K8S_POD_NAME=web-0;K8S_POD_NAMESPACE=default') // ok, Map{K8S_POD_NAME => 'web-0', ...}
 * parseCniArgs('oops').ok // false: code 4
 */
export function parseCniArgs(text: string): Checked<ReadonlyMap<string, string>> {
  const out = new Map<string, string>();
  for (const pair of text.split(';')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0)
      return invalid(
        'CNI_ARGS',
        `CNI_ARGS has an invalid pair ${JSON.stringify(pair)}`,
        'expected KEY=VALUE;KEY=VALUE',
      );
    out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return accept(out);
}
