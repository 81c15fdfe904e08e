/**
 * scenarios/lab: the `lab` world, where scenarios answer with real packets.
 * A local OVN control plane, one chassis of real ovs-vswitchd on the
 * userspace datapath with ovn-controller (chassis.ts), scenario nodes as
 * network namespaces with `ovn0` (node/setup) and outside hosts behind them
 * (nodes.ts) and a kovn node daemon each (daemons.ts, daemon-main.ts), pods
 * as namespaces wired through kovn's CNI plugin (cni.ts), probe agents with real
 * sockets (agent.mjs, agents.ts, answer.ts), names carrying the run's id
 * (names.ts) and namespaces listed in the run dir so they never outlive the
 * run (host.ts).
 */
export { LabWorld, type LabWorldOptions } from './world.ts';
export { LabError, type LabErrorCode } from './errors.ts';
export { SCTP_UNSURE } from './answer.ts';
