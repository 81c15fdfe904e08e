/**
 * Pods as a runtime makes them without podman: a network namespace
 * (`ip netns add`, named with the run's id) and the plugin executable called
 * with ADD, as a runtime does (scenarios/lab/cni-exec.ts); DEL and the namespace's removal
 * undo it. The QoS test's pods and `kovn bench cni`'s are made this way.
 */
import { basename } from 'node:path';
import type { CniResult } from '../../node/cni/protocol.ts';
import { type CniCommand, type CniOutcome, invokePlugin } from '../lab/cni-exec.ts';
import { RuntimeError } from './errors.ts';
import type { Namespaces } from '../lab/host.ts';
import { runName } from './support.ts';

export interface CniPod {
  readonly name: string;
  readonly namespace: string;
  /** The network namespace's name (under /run/netns). */
  readonly netns: string;
  readonly containerId: string;
  readonly result: CniResult;
  /** The ADD call, spawn to exit. */
  readonly addMs: number;
}

export interface CniPodsOptions {
  /** The plugin executable. */
  readonly plugin: string;
  /** The plugin's entry of the conflist (type, server_socket, ...). */
  readonly pluginConfig: Readonly<Record<string, unknown>>;
  /** The network's name; default `kovn`. */
  readonly network?: string;
  /** Where the pods' namespaces are made and listed (the world's: they go with its run dir however it ends). */
  readonly namespaces: Namespaces;
}

/**
 * @example
 * const pods = new CniPods({ plugin, pluginConfig: world.pluginConfig('kovn'), namespaces: world.namespaces });
 * await world.createPod({ name: 'a' });
 * const a = await pods.add('a'); // a.netns: 'kcp-1f3a-0', a.result.ips[0].address: '10.16.0.2/16'
 * await pods.removeAll();
 */
export class CniPods {
  readonly #live = new Map<string, CniPod>();

  constructor(readonly opts: CniPodsOptions) {}

  #config(): Record<string, unknown> {
    return { cniVersion: '1.0.0', name: this.opts.network ?? 'kovn', ...this.opts.pluginConfig };
  }

  #call(command: CniCommand, pod: { name: string; namespace: string; netns: string; containerId: string }) {
    return invokePlugin({
      plugin: this.opts.plugin,
      command,
      config: this.#config(),
      containerId: pod.containerId,
      netns: `/run/netns/${pod.netns}`,
      args: { K8S_POD_NAMESPACE: pod.namespace, K8S_POD_NAME: pod.name },
    });
  }

  /** A namespace for the pod and the plugin's ADD into it; a failed ADD removes the namespace and throws. */
  async add(name: string, namespace = 'default'): Promise<CniPod> {
    const netns = runName('kcp');
    const containerId = `${netns}-${name}`.replace(/[^A-Za-z0-9_.-]/g, '-');
    await this.opts.namespaces.add(netns);
    let out: CniOutcome;
    try {
      out = await this.#call('ADD', { name, namespace, netns, containerId });
    } catch (e) {
      await this.opts.namespaces.delete(netns);
      throw e;
    }
    if (out.code !== 0) {
      await this.opts.namespaces.delete(netns);
      const what = basename(this.opts.plugin);
      throw new RuntimeError('tool-failed', `${what} ADD ${namespace}/${name}: exit ${out.code}: ${out.stdout.trim()}`);
    }
    const pod: CniPod = { name, namespace, netns, containerId, result: out.output as CniResult, addMs: out.ms };
    this.#live.set(netns, pod);
    return pod;
  }

  /** A pod added by other means (its namespace made in `namespaces`), from now on removed by {@link del} and {@link removeAll}. */
  adopt(pod: CniPod): CniPod {
    this.#live.set(pod.netns, pod);
    return pod;
  }

  /** The plugin's DEL, then the namespace removed; returns the DEL call's milliseconds. */
  async del(pod: CniPod): Promise<number> {
    this.#live.delete(pod.netns);
    try {
      const out = await this.#call('DEL', pod);
      if (out.code !== 0) {
        const what = basename(this.opts.plugin);
        throw new RuntimeError(
          'tool-failed',
          `${what} DEL ${pod.namespace}/${pod.name}: exit ${out.code}: ${out.stdout}`,
        );
      }
      return out.ms;
    } finally {
      await this.opts.namespaces.delete(pod.netns);
    }
  }

  /** DEL for every pod still added (errors ignored: teardown). */
  async removeAll(): Promise<void> {
    for (const p of [...this.#live.values()]) await this.del(p).catch(() => {});
  }
}
