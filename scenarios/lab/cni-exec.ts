/**
 * Calls a CNI plugin executable as a container runtime does (SPEC.md
 * "Execution protocol"): CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS,
 * CNI_IFNAME, CNI_ARGS and CNI_PATH in the environment, the plugin's
 * network configuration (the conflist's `name` and `cniVersion` merged into
 * one plugin entry, as libcni does) on stdin, the result or error on stdout.
 * The lab's pods (cni.ts), the real-runtime world's pods (scenarios/runtime)
 * and `kovn bench cni` are wired this way; podman wires its containers
 * through libcni itself.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { LabError } from './errors.ts';

export type CniCommand = 'ADD' | 'DEL' | 'CHECK' | 'VERSION' | 'STATUS' | 'GC';

export interface CniCall {
  /** The plugin executable. */
  readonly plugin: string;
  readonly command: CniCommand;
  /** The plugin's configuration as the runtime derives it (cniVersion, name, type and the plugin's keys). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly containerId?: string;
  /** A namespace path, e.g. `/run/netns/<name>`. */
  readonly netns?: string;
  /** Default `eth0`. */
  readonly ifName?: string;
  /** CNI_ARGS pairs, e.g. `{ K8S_POD_NAME: 'web', K8S_POD_NAMESPACE: 'default' }`. */
  readonly args?: Readonly<Record<string, string>>;
  /** Bound on the call; default 60 s. */
  readonly timeoutMs?: number;
}

export interface CniOutcome {
  /** The exit status (0: success). */
  readonly code: number;
  /** stdout parsed as JSON, when it is JSON. */
  readonly output: unknown;
  readonly stdout: string;
  readonly stderr: string;
  /** From spawn to exit, measured here. */
  readonly ms: number;
}

/** CNI_ARGS as the runtimes write it: `K=V;K=V`, libcni's IgnoreUnknown first. */
export function formatCniArgs(args: Readonly<Record<string, string>>): string {
  return ['IgnoreUnknown=1', ...Object.entries(args).map(([k, v]) => `${k}=${v}`)].join(';');
}

/**
 * Runs the plugin once; never throws on the plugin's own failure (that is
 * the outcome's code and output), only when it cannot be started or hangs.
 *
 * @example
 * const r = await invokePlugin({ plugin, command: 'ADD', config: { cniVersion: '1.0.0', name: 'kovn', type: 'kovn' },
 *   containerId: 'c1', netns: '/run/netns/kq-1', args: { K8S_POD_NAME: 'a', K8S_POD_NAMESPACE: 'default' } });
 * r.code // 0; r.output: the CNI result
 */
export function invokePlugin(c: CniCall): Promise<CniOutcome> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    CNI_COMMAND: c.command,
    CNI_CONTAINERID: c.containerId ?? '',
    CNI_NETNS: c.netns ?? '',
    CNI_IFNAME: c.ifName ?? 'eth0',
    CNI_ARGS: c.args === undefined ? '' : formatCniArgs(c.args),
    CNI_PATH: dirname(c.plugin),
  };
  const timeoutMs = c.timeoutMs ?? 60_000;
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(c.plugin, [], { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (e) =>
      reject(new LabError('wiring-failed', `${c.plugin} ${c.command}: ${e.message}`, { cause: e })),
    );
    child.on('close', (code, signal) => {
      const ms = performance.now() - start;
      if (code === null) {
        reject(
          new LabError(
            'wiring-failed',
            `${c.plugin} ${c.command}: ended by ${String(signal)} after ${Math.round(ms)} ms`,
          ),
        );
        return;
      }
      let output: unknown;
      try {
        output = stdout.trim() === '' ? undefined : JSON.parse(stdout);
      } catch {
        output = undefined;
      }
      resolve({ code, output, stdout, stderr, ms });
    });
    child.stdin.end(JSON.stringify(c.config));
  });
}
