/**
 * A sysfs tree in a temp dir, shaped as a switchdev NIC's (mlx5-like):
 * bus/pci/devices/<PF> with virtfnN links to its VFs, each VF with a
 * `physfn` link and its netdev under `net/`, the uplink and the VF
 * representors under the PF's `net/`, and class/net/<netdev> with
 * `phys_switch_id` and `phys_port_name`. What findVf reads, nothing else.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface FakeNic {
  readonly pf: string;
  /** The PF's uplink netdev; `switchId` undefined: the eswitch is in legacy mode (no phys_switch_id). */
  readonly uplink: { readonly name: string; readonly switchId?: string; readonly portName?: string };
  /** VFs in index order: their PCI address, netdev, and representor (name and phys_port_name). */
  readonly vfs: readonly {
    readonly pci: string;
    readonly netdev?: string;
    readonly rep?: { readonly name: string; readonly portName: string };
  }[];
}

/** Adds a NIC to the tree at `root`. */
export async function addFakeNic(root: string, nic: FakeNic): Promise<void> {
  const devices = join(root, 'bus/pci/devices');
  const classNet = join(root, 'class/net');
  const pfDir = join(devices, nic.pf);
  await mkdir(join(pfDir, 'net', nic.uplink.name), { recursive: true });
  await netdev(classNet, nic.uplink.name, nic.uplink.switchId, nic.uplink.portName);
  for (const [i, vf] of nic.vfs.entries()) {
    const vfDir = join(devices, vf.pci);
    await mkdir(vfDir, { recursive: true });
    if (vf.netdev !== undefined) {
      await mkdir(join(vfDir, 'net', vf.netdev), { recursive: true });
      await netdev(classNet, vf.netdev, undefined, undefined);
    }
    await symlink(`../${nic.pf}`, join(vfDir, 'physfn'));
    await symlink(`../${vf.pci}`, join(pfDir, `virtfn${i}`));
    if (vf.rep === undefined) continue;
    await mkdir(join(pfDir, 'net', vf.rep.name), { recursive: true });
    await netdev(classNet, vf.rep.name, nic.uplink.switchId, vf.rep.portName);
  }
}

/** A netdev in class/net; without a switch id its attributes are absent (sysfs answers EOPNOTSUPP). */
export async function netdev(classNet: string, name: string, switchId?: string, portName?: string): Promise<void> {
  const dir = join(classNet, name);
  await mkdir(dir, { recursive: true });
  if (switchId !== undefined) await writeFile(join(dir, 'phys_switch_id'), `${switchId}\n`);
  if (portName !== undefined) await writeFile(join(dir, 'phys_port_name'), `${portName}\n`);
}
