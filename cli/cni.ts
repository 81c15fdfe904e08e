/**
 * `kovn cni`: the CNI plugin run through the kovn command (the same code as
 * the bundled executable dist/cni/kovn that a conflist's `type` names; this
 * form loads the TypeScript loader, so it starts slower).
 */
import type { Command } from 'commander';

export function registerCni(program: Command): void {
  program
    .command('cni')
    .description(
      'the CNI plugin (spec 1.0/1.1: ADD, DEL, CHECK, STATUS, GC, VERSION): CNI_COMMAND, CNI_CONTAINERID, ' +
        'CNI_NETNS, CNI_IFNAME, CNI_ARGS (K8S_POD_NAME, K8S_POD_NAMESPACE) from the environment, the network ' +
        "config on stdin (`server_socket`: the daemon's socket, default /run/kovn/daemon.sock; `provider`; " +
        '`pod_namespace`: the namespace when CNI_ARGS names only the pod, as podman does); ' +
        'the result or the error on stdout. Runtimes should name the bundled executable (dist/cni/kovn, ' +
        '`tsx node/bundle/main.ts` builds it), which starts faster.',
    )
    .action(async () => {
      const { runCniProcess } = await import('../node/cni/run.ts');
      await runCniProcess();
    });
}
