/**
 * The routers' MAC bindings for a scenario's physical hosts on real OVN: the
 * SB MAC_Binding rows ovn-controller writes when a host answers a router's
 * ARP (probe-hosts.ts hostNeighbors, the simulator's `neighbors`), so that
 * ovn-trace resolves a router's next hop to a host as the simulator does,
 * instead of stopping at an ARP request the host would answer.
 */
import { runTool } from '../backends/ovn/control-plane/exec.ts';
import type { Topology } from '../model/topology/index.ts';
import type { ScenarioHost } from './hosts.ts';
import { hostNeighbors } from './probe-hosts.ts';

const sbctl = async (sb: string, ...args: string[]) =>
  (await runTool('ovn-sbctl', [`--db=${sb}`, ...args])).stdout.trim();

/**
 * Replaces every MAC_Binding of the SB at `sb` with the hosts' bindings in `t`;
 * returns how many were written (the caller reloads ovn-trace when any were).
 *
 * @example await bindHosts(cp.sb.remote, topology, hosts) // 2
 */
export async function bindHosts(sb: string, t: Topology, hosts: readonly ScenarioHost[]): Promise<number> {
  await sbctl(sb, '--all', 'destroy', 'MAC_Binding');
  let n = 0;
  for (const [port, byIp] of Object.entries(hostNeighbors(t, hosts))) {
    const router = t.routerPort.get(port)?.router;
    if (router === undefined) continue;
    const dp = await sbctl(sb, '--bare', '--columns=_uuid', 'find', 'Datapath_Binding', `external_ids:name=${router}`);
    if (dp === '') continue;
    for (const [ip, mac] of Object.entries(byIp)) {
      await sbctl(sb, 'create', 'MAC_Binding', `logical_port=${port}`, `ip="${ip}"`, `mac="${mac}"`, `datapath=${dp}`);
      n++;
    }
  }
  return n;
}
