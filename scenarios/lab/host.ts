/**
 * The lab's hands on the host: `ip` commands, network namespaces named with
 * the run's id and listed in its run dir before they are made (proc.mjs,
 * NETNS_LIST: however the run ends, the exit hooks, the run guard or a later
 * run's sweep delete them with the dir), and one namespace's sysctls.
 */
import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { NETNS_LIST } from '../../backends/ovn/control-plane/proc.mjs';
import { LabError } from './errors.ts';

/**
 * Runs a host tool (iproute2, procps); rejects with LabError `command-failed` and its stderr.
 *
 * @example await run('ip', ['netns', 'list'])
 */
export function run(cmd: string, args: readonly string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, [...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) {
        const why = stderr.trim() || err.message;
        reject(new LabError('command-failed', `${cmd} ${args.join(' ')}: ${why}`, { cause: err }));
      } else resolve(stdout);
    });
  });
}

/**
 * `ip ARGS`.
 *
 * @example await ip('link', 'set', 'kl0', 'up')
 */
export const ip = (...args: string[]): Promise<string> => run('ip', args);

/**
 * `ip -n NS ARGS`: an `ip` command inside a namespace.
 *
 * @example await ipIn('kl-Ab12Cd-n0', 'route', 'replace', '10.16.0.0/16', 'via', '100.64.0.1')
 */
export const ipIn = (ns: string, ...args: string[]): Promise<string> => run('ip', ['-n', ns, ...args]);

/**
 * A sysctl set inside a namespace (`ip netns exec NS sysctl -qw K=V`).
 *
 * @example await sysctlIn('kl-Ab12Cd-n0', 'net.ipv4.ip_forward', '1')
 */
export const sysctlIn = (ns: string, key: string, value: string): Promise<string> =>
  run('ip', ['netns', 'exec', ns, 'sysctl', '-qw', `${key}=${value}`]);

/**
 * The run's namespaces: each name is written to the run dir's list before
 * `ip netns add`, so a death between the two leaves nothing unlisted.
 *
 * @example
 * const ns = new Namespaces(dir); await ns.add('kl-Ab12Cd-p0'); await ns.delete('kl-Ab12Cd-p0');
 */
export class Namespaces {
  readonly #live = new Set<string>();
  constructor(readonly runDir: string) {}

  async add(name: string): Promise<void> {
    appendFileSync(join(this.runDir, NETNS_LIST), `${name}\n`);
    await ip('netns', 'add', name);
    this.#live.add(name);
    await ipIn(name, 'link', 'set', 'lo', 'up');
    // No duplicate address detection on the devices it will get: an address (a link-local one too) is
    // usable at once, not tentative for the first second or two of a run (nobody here shares one).
    for (const scope of ['all', 'default']) await sysctlIn(name, `net.ipv6.conf.${scope}.accept_dad`, '0');
  }

  async delete(name: string): Promise<void> {
    this.#live.delete(name);
    await ip('netns', 'del', name).catch(() => {});
  }

  get live(): readonly string[] {
    return [...this.#live];
  }
}
