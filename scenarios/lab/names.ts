/**
 * Names of a lab run's namespaces and host interfaces, all carrying the
 * run's id (so parallel or crashed runs never collide, and what a dead run
 * left is recognisable). Interface names fit Linux's 15 bytes.
 */
import { basename } from 'node:path';

export interface LabNames {
  readonly id: string;
  /** The lab's host: where ovs-vswitchd runs and the host ends of every veth are. */
  readonly host: string;
  /** A node's namespace (its host network) and the host end of its `ovn0` veth. */
  node(i: number): { readonly netns: string; readonly hostNic: string };
  /** The namespace of the outside hosts behind node `i`. */
  outside(i: number): { readonly netns: string };
  /**
   * A pod's namespace and its container id (the daemon names the host ends of its veths after it:
   * `<id>_h`, and `<first 12 - len(ifName)>_<ifName>_h` for an attachment, so the pod's index leads).
   */
  pod(i: number): { readonly netns: string; readonly hostNic: string };
}

/**
 * @example labNames('/tmp/kovn-lab-Ab12Cd').pod(3) // { netns: 'kl-Ab12Cd-p3', hostNic: 'p3kAb12Cd' }
 */
export function labNames(runDir: string): LabNames {
  // makeTempDir's suffix: six characters unique among live run dirs.
  const id = basename(runDir).split('-').pop() ?? 'x';
  return {
    id,
    host: `kl-${id}-h`,
    node: (i) => ({ netns: `kl-${id}-n${i}`, hostNic: `kl${id}n${i}` }),
    outside: (i) => ({ netns: `kl-${id}-o${i}` }),
    pod: (i) => ({ netns: `kl-${id}-p${i}`, hostNic: `p${i}k${id}` }),
  };
}
