/**
 * sim: the in-process packet simulator. It follows OVN 23.03's logical
 * pipelines as ovn-northd builds them, stage by stage and by stage name
 * (switch: port security, conntrack hints, ACLs with OVN's priorities and
 * stateful semantics, load balancers and hairpin, ARP/ND responder, L2
 * lookup; router: admission, IP input, unSNAT/DNAT/unDNAT/SNAT for gateway
 * routers and distributed gateway ports, longest-prefix routing with static
 * routes, route tables and ECMP, policies, ARP resolution), with a conntrack
 * model per zone, and records every stage in a trace.
 *
 *   const net = compileNetwork(topology, opts?)          // once per topology
 *   const r = simulate(net, { inport, packet })          // per probe
 *   r.verdict, r.outputs, r.drop, formatResult(r), resultToJSON(r)
 *   simulate(net, { inport: peer, packet: reply, conntrack: r.conntrack })
 *
 * - `compileNetwork(topology, { isChassisResident?, chassis?, defaultAclDrop?, neighbors? })`:
 *   rows northd would ignore are skipped and listed in `net.issues`; so are
 *   flows northd writes but OVN refuses to parse, which ovn-controller never
 *   installs (compile/northd-text.ts: a stateful switch's reject ACL whose
 *   match has a top-level `||`, a router VIP without backends whose
 *   `drop;` follows a skip/force-SNAT flag, an ACL log name with a quote).
 * - `simulate(net, { inport, packet, conntrack?, select?, trace? })` →
 *   `{ verdict, outputs, stages, conntrack, drop?, drops, ctLookups, choices }`.
 *   Several outputs for floods; `outputs[i].generated` marks packets the
 *   network made (ARP/ND answers, echo replies, ICMP errors, TCP resets, ARP
 *   requests for unknown next hops).
 * - Choices (LB backend, ECMP member) go through `select` (default: the
 *   first); `choices` lists what was picked, `ctLookups` the ct states seen
 *   (in order, as ovn-trace's `--ct` flags spell them).
 *
 * Where the simulator follows the datapath and ovn-trace does not (the
 * differential test must normalise these): ovn-trace keeps ct_state across
 * patch ports and ORs new ct_lb states into it (OVS clears it:
 * controller/physical.c), clears logical flags between ingress and egress
 * (OVS keeps them), stops at a bare `ct_snat` on a gateway router, and
 * emulates port security with exact addresses only (ovn-controller admits a
 * whole subnet for a port-security CIDR whose host bits are zero). Generated
 * packets are built as pinctrl builds them, not as ovn-trace seeds them:
 * TCP RST (RST|ACK) and SCTP ABORT with TTL 63 and ports swapped (ovn-trace:
 * TTL 255, ports kept, RST only); `reject` of UDP gives ICMP port
 * unreachable, of anything else code 1 (ovn-trace: always code 1); a
 * router's NS comes from the link-local address of its port's MAC, to the
 * solicited-node group, SLL = that MAC (ovn-trace keeps the packet's
 * addresses). Like ovn-trace, every existing port is chassis-resident
 * unless `isChassisResident`/`chassis` say otherwise, `@pg` means the
 * group's members on the switch being evaluated (`$pg_ip4` all of them),
 * and an ARP opcode keeps 8 bits (OVS's nw_proto).
 *
 * Throughput (`kovn bench sim`): the compiled network indexes ACLs and
 * router policies by the port or address their match requires
 * (compile/acl-index.ts) and resolves ports, patch links and MAC tables
 * once; packets travel in one object shape (packet/canonical.ts, what the
 * builders return); conntrack transactions copy no tables
 * (conntrack/tx.ts); a run reuses its pass state, and untraced passes skip
 * stages that could only add trace lines.
 *
 * Pure: no I/O, no clock, no randomness. Imports only model/.
 */
export * from '../model/packet/index.ts';
export * from './conntrack/index.ts';
export * from './compile/index.ts';
export * from './pipeline/index.ts';
export * from './trace.ts';
export * from './simulate.ts';
export * from './result.ts';
export * from './connection.ts';
