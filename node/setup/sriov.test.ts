/**
 * findVf over sysfs trees built in a temp dir: a switchdev NIC with two
 * PFs on one switch, a NIC whose driver names ports the old way, a
 * legacy-mode NIC, a VF without a netdev, and a device that is no VF.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findVf } from './sriov.ts';
import { addFakeNic, netdev } from './testing/fake-sysfs.ts';

describe('findVf: a VF and its representor through sysfs', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kovn-sysfs-'));
    // Two PFs of one card share the switch id; each PF's representors hang off its own device.
    await addFakeNic(root, {
      pf: '0000:03:00.0',
      uplink: { name: 'enp3s0f0np0', switchId: 'aabbcc', portName: 'p0' },
      vfs: [
        { pci: '0000:03:00.2', netdev: 'enp3s0f0v0', rep: { name: 'eth10', portName: 'pf0vf0' } },
        { pci: '0000:03:00.3', netdev: 'enp3s0f0v1', rep: { name: 'eth11', portName: 'pf0vf1' } },
      ],
    });
    await addFakeNic(root, {
      pf: '0000:03:00.1',
      uplink: { name: 'enp3s0f1np1', switchId: 'aabbcc', portName: 'p1' },
      vfs: [{ pci: '0000:03:08.2', netdev: 'enp3s0f1v0', rep: { name: 'eth20', portName: 'pf1vf0' } }],
    });
    // An old driver's bare-index port names (sriovnet's sysfs path does not read them either).
    await addFakeNic(root, {
      pf: '0000:81:00.0',
      uplink: { name: 'ens1f0np0', switchId: 'ddeeff', portName: 'p0' },
      vfs: [{ pci: '0000:81:00.2', netdev: 'ens1f0v0', rep: { name: 'eth30', portName: '0' } }],
    });
    // Legacy SR-IOV: no switch id anywhere.
    await addFakeNic(root, {
      pf: '0000:05:00.0',
      uplink: { name: 'enp5s0f0' },
      vfs: [{ pci: '0000:05:00.2', netdev: 'enp5s0f0v0' }],
    });
    // A VF whose driver took it from the kernel (vfio-pci): no netdev.
    await addFakeNic(root, {
      pf: '0000:06:00.0',
      uplink: { name: 'enp6s0f0np0', switchId: '112233', portName: 'p0' },
      vfs: [{ pci: '0000:06:00.2', rep: { name: 'eth60', portName: 'pf0vf0' } }],
    });
    await netdev(join(root, 'class/net'), 'lo');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('finds netdev, PF, index, uplink and the representor of the same PF', async () => {
    expect(await findVf('0000:03:00.3', root)).toEqual({
      pciAddress: '0000:03:00.3',
      netdev: 'enp3s0f0v1',
      pfPciAddress: '0000:03:00.0',
      vfIndex: 1,
      uplink: 'enp3s0f0np0',
      representor: 'eth11',
    });
    // VF0 of PF1: pf1vf0 under PF1's device, not PF0's pf0vf0 on the same switch.
    expect(await findVf('0000:03:08.2', root)).toMatchObject({
      vfIndex: 0,
      uplink: 'enp3s0f1np1',
      representor: 'eth20',
    });
  });

  it('fails typed, naming the VF and what is missing', async () => {
    await expect(findVf('0000:05:00.2', root)).rejects.toMatchObject({
      code: 'sriov',
      message: /VF 0000:05:00\.2: .*switchdev/,
    });
    await expect(findVf('0000:03:00.0', root)).rejects.toMatchObject({ code: 'sriov', message: /not a VF/ });
    await expect(findVf('0000:06:00.2', root)).rejects.toMatchObject({ code: 'sriov', message: /one netdev/ });
    await expect(findVf('0000:99:00.2', root)).rejects.toMatchObject({ code: 'sriov' });
    await expect(findVf('0000:81:00.2', root)).rejects.toMatchObject({ code: 'sriov', message: /pf<N>vf0/ });
  });
});
