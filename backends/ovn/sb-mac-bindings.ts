/**
 * SB MAC_Binding rows for neighbours OVN learns from outside its logical
 * ports: what ovn-controller writes when a physical host answers a router's
 * ARP (pinctrl's put_arp). ovn-trace reads them (read_mac_bindings: the
 * router port by `logical_port`, its datapath, `ip`, `mac`), so a trace from
 * a pod to a host behind a router port resolves the host's MAC as the
 * running network would, instead of ending in an ARP request.
 */
import { OvsdbClient, OvsUuid } from './ovsdb/index.ts';

/**
 * Writes `bindings` (router port → address → MAC) into the SB at `remote`,
 * replacing any binding of the same port and address. A port not bound in
 * the SB (northd has not made it) is skipped.
 *
 * @example await writeMacBindings('unix:/tmp/sb.sock', { 'ovn-cluster-ul': { '172.17.0.200': '02:…' } })
 */
export async function writeMacBindings(
  remote: string,
  bindings: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Promise<number> {
  const ports = Object.keys(bindings);
  if (ports.length === 0) return 0;
  const client = await OvsdbClient.connect(remote);
  try {
    let written = 0;
    for (const port of ports) {
      const [sel] = await client.transactRaw('OVN_Southbound', [
        {
          op: 'select',
          table: 'Port_Binding',
          where: [{ column: 'logical_port', function: '==', value: port }],
          columns: ['datapath'],
        },
      ]);
      const dp = (sel as { rows?: readonly { datapath?: unknown }[] } | null)?.rows?.[0]?.datapath;
      if (!(dp instanceof OvsUuid)) continue;
      for (const [ip, mac] of Object.entries(bindings[port]!)) {
        const where = [
          { column: 'logical_port', function: '==' as const, value: port },
          { column: 'ip', function: '==' as const, value: ip },
        ];
        const reply = await client.transactRaw('OVN_Southbound', [
          { op: 'delete', table: 'MAC_Binding', where },
          { op: 'insert', table: 'MAC_Binding', row: { logical_port: port, ip, mac, datapath: dp } },
        ]);
        const failed = reply.find((r) => r !== null && 'error' in (r as object));
        if (failed !== undefined)
          throw new Error(`MAC_Binding ${port} ${ip}: ${JSON.stringify((failed as { error: unknown }).error)}`);
        written++;
      }
    }
    return written;
  } finally {
    client.close();
  }
}
