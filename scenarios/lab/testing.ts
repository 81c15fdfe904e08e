/**
 * For the lab's tests: whether the lab can run here (OVN binaries, root, the
 * host tools it drives), failing instead of skipping when the suite requires
 * OVN (KOVN_REQUIRE_OVN=1), and the namespaces a run id still has.
 */
import { spawnSync } from 'node:child_process';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';

/** The host tools the lab runs: iproute2, ethtool, iputils' ping. */
export const LAB_TOOLS = ['ip', 'ethtool', 'ping'] as const;

const onPath = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;

/**
 * @example describe.skipIf(!labAvailable('lab world'))('...', () => { ... })
 */
export function labAvailable(ctx: string): boolean {
  if (!requireOvn(ctx)) return false;
  const missing = [...(process.getuid?.() === 0 ? [] : ['root']), ...LAB_TOOLS.filter((t) => !onPath(t))];
  if (missing.length === 0) return true;
  if (process.env.KOVN_REQUIRE_OVN === '1') throw new Error(`${ctx}: the lab needs ${missing.join(', ')}`);
  return false;
}

/**
 * The network namespaces whose name carries `runId` (`kl-<id>-...`).
 *
 * @example expect(netnsOf(world.runId)).toEqual([])
 */
export function netnsOf(runId: string): string[] {
  const out = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(`kl-${runId}-`));
}

/**
 * Root-namespace devices whose name carries `runId` (`kl<id>...`).
 *
 * @example expect(linksOf(world.runId)).toEqual([])
 */
export function linksOf(runId: string): string[] {
  const out = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0] ?? '')
    .filter((n) => n.startsWith(`kl${runId}`));
}
