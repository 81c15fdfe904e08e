/**
 * VPC NAT gateways in the lab: the gateway pod is the namespace the CNI
 * wired like any pod (eth0 on its subnet with the lanIp); here it gets what
 * Kube-OVN's nat-gateway.sh gives it, for real: net1, a veth to a namespace
 * standing for the external network, the EIPs on net1 (eip-add, /32), the
 * default route out of net1 and the VPC's other subnets via the subnet's
 * gateway on eth0 (subnet-route-add), forwarding on, and the nat and
 * mangle tables' chains and rules (sim/appliance/iptables.ts, the same rows
 * the simulator's appliance evaluates) installed with `iptables`. The
 * external namespace routes only the EIPs to net1: a packet leaving
 * untranslated gets no answer, as on a real external network. The rules are
 * installed again at every step (the chains flushed first).
 */
import type { NatAppliance } from '../../sim/appliance/nat-gateway.ts';
import { INIT_ARGS, iptablesArgs, natRules } from '../../sim/appliance/iptables.ts';
import { Agent } from './agents.ts';
import type { OutsideEnd } from './answer.ts';
import { ipIn, type Namespaces, run, sysctlIn } from './host.ts';

/** The external side's own address (the gateway pod's default route goes to it, onlink). */
const EXTERNAL_ROUTER = '169.254.100.1';

interface External {
  readonly netns: string;
  readonly agent: Agent;
  readonly held: Set<string>;
}

const iptables = (ns: string, args: readonly string[]) => run('ip', ['netns', 'exec', ns, 'iptables', ...args]);

export class LabNatGateways {
  readonly #external = new Map<string, External>();
  readonly #byPort = new Map<string, External>();

  constructor(
    private readonly namespaces: Namespaces,
    /** The external namespace of the i-th gateway. */
    private readonly nameOf: (i: number) => string,
  ) {}

  /** Each gateway's external side made (once) and its addresses, routes and rules installed (every step). */
  async sync(apps: readonly NatAppliance[], podNetns: (port: string) => string | undefined): Promise<void> {
    this.#byPort.clear();
    for (const app of apps) {
      const gw = podNetns(app.port);
      if (gw === undefined) continue;
      const ext = this.#external.get(gw) ?? (await this.#make(gw, app.name));
      this.#byPort.set(app.port, ext);
      await configure(gw, ext.netns, app);
    }
  }

  async #make(gw: string, name: string): Promise<External> {
    const netns = this.nameOf(this.#external.size);
    await this.namespaces.add(netns);
    await ipIn(gw, 'link', 'add', 'net1', 'type', 'veth', 'peer', 'name', 'ext0', 'netns', netns);
    await ipIn(netns, 'addr', 'add', `${EXTERNAL_ROUTER}/32`, 'dev', 'ext0');
    await ipIn(gw, 'link', 'set', 'net1', 'up');
    await ipIn(netns, 'link', 'set', 'ext0', 'up');
    await ipIn(netns, 'link', 'set', 'lo', 'up');
    const ext = { netns, agent: await Agent.start(netns, `outside@${name}`), held: new Set<string>() };
    this.#external.set(gw, ext);
    return ext;
  }

  /** The outside network behind a gateway pod's port (an egress probe's target, an ingress probe's source). */
  outsideOf(port: string): OutsideEnd | undefined {
    const ext = this.#byPort.get(port);
    if (ext === undefined) return undefined;
    return {
      agent: ext.agent,
      hold: async (addr) => {
        if (ext.held.has(addr)) return;
        await ipIn(ext.netns, 'addr', 'add', `${addr}/32`, 'dev', 'lo');
        ext.held.add(addr);
      },
    };
  }

  async close(): Promise<void> {
    for (const e of this.#external.values()) await e.agent.close().catch(() => {});
  }
}

/** nat-gateway.sh's init, eip-add, subnet-route-add and the rules, in the gateway pod's namespace. */
async function configure(gw: string, ext: string, app: NatAppliance): Promise<void> {
  await sysctlIn(gw, 'net.ipv4.ip_forward', '1');
  await ipIn(gw, 'addr', 'flush', 'dev', 'net1');
  await ipIn(ext, 'route', 'flush', 'dev', 'ext0');
  for (const e of app.rules.eips) {
    await ipIn(gw, 'addr', 'add', `${e.ip}/32`, 'dev', 'net1');
    await ipIn(ext, 'route', 'replace', `${e.ip}/32`, 'dev', 'ext0');
  }
  await ipIn(gw, 'route', 'replace', 'default', 'via', EXTERNAL_ROUTER, 'dev', 'net1', 'onlink');
  for (const c of app.vpcCidrs) await ipIn(gw, 'route', 'replace', c, 'via', app.routerIp, 'dev', 'eth0');
  for (const table of ['nat', 'mangle']) {
    await iptables(gw, ['-t', table, '-F']);
    await iptables(gw, ['-t', table, '-X']);
  }
  for (const a of INIT_ARGS) await iptables(gw, a);
  for (const r of natRules(app.rules)) await iptables(gw, iptablesArgs(r));
}
