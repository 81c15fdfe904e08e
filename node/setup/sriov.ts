/**
 * An SR-IOV VF and its representor, found through sysfs as Kube-OVN's
 * setupSriovInterface does with the sriovnet library (its sysfs path; the
 * devlink query it tries first is not made here): the VF's netdev under its
 * PCI device, its PF (`physfn`), its index among the PF's `virtfnN` links,
 * the uplink representor (a netdev of the PF with a `phys_switch_id`, i.e.
 * switchdev mode, and a `phys_port_name` `p<N>`), and the VF representor:
 * the netdev of the same PF device whose `phys_port_name` is `pf<P>vf<index>`.
 * The sysfs root is a parameter, so tests build the tree in a temp dir.
 */
import { readFile, readdir, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { SetupError } from './errors.ts';

export const SYSFS_ROOT = '/sys';

/** What the offload profile needs of a VF. */
export interface VfInfo {
  /** The VF's PCI address (the CNI config's `deviceID`). */
  readonly pciAddress: string;
  /** The VF's netdev in the host namespace, moved into the pod's. */
  readonly netdev: string;
  readonly pfPciAddress: string;
  readonly vfIndex: number;
  /** The PF's uplink representor. */
  readonly uplink: string;
  /** The VF representor: the OVS port (renamed to the pod's host NIC name). */
  readonly representor: string;
}

const fail = (pci: string, what: string, cause?: unknown): never => {
  throw new SetupError('sriov', `VF ${pci}: ${what}`, cause === undefined ? undefined : { cause });
};

async function entries(path: string): Promise<string[] | undefined> {
  try {
    return (await readdir(path)).sort();
  } catch {
    return undefined;
  }
}

async function attr(path: string): Promise<string | undefined> {
  try {
    const v = (await readFile(path, 'utf8')).trim();
    return v === '' ? undefined : v;
  } catch {
    // sysfs answers EOPNOTSUPP for phys_switch_id / phys_port_name of a netdev without them.
    return undefined;
  }
}

const PF_VF = /^pf(\d+)vf(\d+)$/;
const UPLINK = /^p(\d+)$/;

/**
 * @example
 * await findVf('0000:03:00.2') // { netdev: 'enp3s0f0v0', pfPciAddress: '0000:03:00.0', vfIndex: 0, uplink: 'enp3s0f0np0', representor: 'enp3s0f0npf0vf0', ... }
 */
export async function findVf(pciAddress: string, sysfsRoot: string = SYSFS_ROOT): Promise<VfInfo> {
  const devices = join(sysfsRoot, 'bus/pci/devices');
  const vfDir = join(devices, pciAddress);
  const netdevs = await entries(join(vfDir, 'net'));
  if (netdevs === undefined || netdevs.length !== 1)
    fail(pciAddress, `expected one netdev in ${join(vfDir, 'net')}, found ${netdevs?.length ?? 'none'}`);
  let pfPciAddress: string;
  try {
    pfPciAddress = basename(await readlink(join(vfDir, 'physfn')));
  } catch (e) {
    return fail(pciAddress, `no PF (${join(vfDir, 'physfn')} is not a link): not a VF`, e);
  }
  const vfIndex = await vfIndexOf(pciAddress, join(devices, pfPciAddress));
  const pfNet = join(devices, pfPciAddress, 'net');
  const uplink = await uplinkOf(pciAddress, pfNet, sysfsRoot);
  const representor = await representorOf(pciAddress, pfNet, vfIndex, sysfsRoot);
  return { pciAddress, netdev: netdevs![0]!, pfPciAddress, vfIndex, uplink, representor };
}

async function vfIndexOf(pci: string, pfDir: string): Promise<number> {
  for (const e of (await entries(pfDir)) ?? []) {
    const m = /^virtfn(\d+)$/.exec(e);
    if (m === null) continue;
    const target = await readlink(join(pfDir, e)).catch(() => '');
    if (basename(target) === pci) return Number(m[1]);
  }
  return fail(pci, `not among the virtfnN links of ${pfDir}`);
}

/** The PF's netdev in switchdev mode (it has a switch id) with an uplink port name `p<N>`. */
async function uplinkOf(pci: string, pfNet: string, root: string): Promise<string> {
  for (const name of (await entries(pfNet)) ?? []) {
    if ((await attr(join(root, 'class/net', name, 'phys_switch_id'))) === undefined) continue;
    if (UPLINK.test((await attr(join(root, 'class/net', name, 'phys_port_name'))) ?? '')) return name;
  }
  return fail(pci, `no netdev in ${pfNet} is an uplink with a phys_switch_id (is its eswitch in switchdev mode?)`);
}

/** The representors hang off the PF's device, as its uplink does: the one named pf<P>vf<index>. */
async function representorOf(pci: string, pfNet: string, vfIndex: number, root: string): Promise<string> {
  for (const name of (await entries(pfNet)) ?? []) {
    const m = PF_VF.exec((await attr(join(root, 'class/net', name, 'phys_port_name'))) ?? '');
    if (m !== null && Number(m[2]) === vfIndex) return name;
  }
  return fail(pci, `no representor of VF ${vfIndex} (phys_port_name pf<N>vf${vfIndex}) in ${pfNet}`);
}
