/**
 * verify/datapath: real packets as the judge. One OVN chassis on the
 * OVS userspace datapath with dummy netdevs (no kernel module, no network
 * namespaces), bound to the logical ports of the topology a control plane
 * holds; frames go in by `netdev-dummy/receive` over vswitchd's unixctl
 * socket and come out of the interfaces' pcap files, ICMP errors, ARP and
 * RSTs made by ovn-controller included. Beside trace/ (ovn-trace), the other
 * view of what OVN does with a packet; where they differ, this one is right.
 *
 *   const dp = await DatapathOracle.start({ controlPlane: cp });
 *   await dp.load(topology);   // NB holds it, northd done
 *   const r = await dp.run({ packets: [{ inport: 'pod0.ls0', packet }] });
 *   r.steps[0].outputs        // [{ port: 'pod1.ls0', packet, bytes }]
 *
 * Measured (2 vCPU VM, OVN 23.03.1 / OVS 3.1.0): chassis start and first
 * bind about 0.5 s; one packet with the default 30 ms pinctrl wait ~35 ms.
 */
export { DatapathError, type DatapathErrorCode } from './errors.ts';
export { parsePcapHeader, parsePcapRecords, emitPcap, type PcapHeader, type PcapRecord } from './pcap.ts';
export { UnixctlClient } from './unixctl.ts';
export { Chassis, type ChassisOptions, type PortBinding, type PortFrames } from './chassis.ts';
export {
  DatapathOracle,
  bindingsOf,
  oneNetworkPerLocalnet,
  type DatapathOracleOptions,
  type DatapathOutput,
  type DatapathRequest,
  type DatapathRun,
  type DatapathStep,
  type SendPacket,
} from './oracle.ts';
