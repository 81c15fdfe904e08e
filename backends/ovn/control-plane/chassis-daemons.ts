/**
 * The two daemons of a chassis on its own conf.db: `ovs-vswitchd` and
 * `ovn-controller`, as the datapath oracle (verify/datapath, dummy netdevs)
 * and the lab (scenarios/lab, real netdevs in a namespace of the run) start
 * them. Only vswitchd's datapath arguments and namespace differ.
 */
import { DaemonProcess } from './daemon.ts';

/**
 * Measured here: ovn-controller 23.03 can grow past 20 GB within seconds on
 * some generated ACL matches (expanding them into flows), until the kernel's
 * OOM killer ends it, or something else. Limited, it fails alone.
 */
export const CHASSIS_DAEMON_MEMORY_LIMIT = 2 * 1024 ** 3;

export interface ChassisDaemonOptions {
  readonly dir: string;
  /** The conf.db both follow, e.g. `unix:<dir>/conf.sock`. */
  readonly confRemote: string;
  /** vswitchd's datapath options, before the database (e.g. `--disable-system`). */
  readonly vswitchdArgs: readonly string[];
  /** The network namespace vswitchd runs in (its devices die with it); default the caller's. */
  readonly netns?: string;
}

/**
 * Neither is started: the caller starts vswitchd, writes its settings, then ovn-controller.
 *
 * @example
 * const { vswitchd, controller } = chassisDaemons({ dir, confRemote: conf.remote, vswitchdArgs: ['--disable-system'] });
 * await vswitchd.start(); // ... system-id, ovn-remote, br-int ...
 * await controller.start();
 */
export function chassisDaemons(o: ChassisDaemonOptions): { vswitchd: DaemonProcess; controller: DaemonProcess } {
  const vswitchd = new DaemonProcess({
    dir: o.dir,
    name: 'vswitchd',
    binary: 'ovs-vswitchd',
    args: [...o.vswitchdArgs, o.confRemote],
    memoryLimitBytes: CHASSIS_DAEMON_MEMORY_LIMIT,
    ...(o.netns === undefined ? {} : { netns: o.netns }),
  });
  const controller = new DaemonProcess({
    dir: o.dir,
    name: 'controller',
    binary: 'ovn-controller',
    args: [o.confRemote],
    // ovn-controller 23.03 takes no --unixctl (its socket is ovn-controller.<pid>.ctl in OVN_RUNDIR).
    unixctlOption: false,
    memoryLimitBytes: CHASSIS_DAEMON_MEMORY_LIMIT,
  });
  return { vswitchd, controller };
}
