/**
 * Real network namespaces for tests: names carry a run id (this process's
 * pid; vitest runs each file in a process of its own) so parallel runs and
 * files never collide, everything made is removed by
 * `cleanup()` (call it in afterAll/afterEach, it runs when a test fails),
 * and what a killed run left behind is swept by the next one.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const NETNS_DIR = '/run/netns';
const NS_PREFIX = 'kovn-nlt-';
const LINK_PREFIX = 'nlt';
/** Shared by every fixture of this process, so two fixtures never hand out one name. */
let counter = 0;

function onPath(bin: string): boolean {
  const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/sbin', '/sbin']);
  return dirs.some((d) => {
    try {
      accessSync(join(d, bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * True when real namespaces can be made here (root, `ip`, `nsenter`). When
 * they cannot and `KOVN_REQUIRE_OVN=1` (CI), throws so the suite fails
 * instead of skipping.
 *
 * @example
 * describe.skipIf(!requireNetns('node/netlink'))('with real namespaces', () => { ... })
 */
export function requireNetns(ctx: string): boolean {
  const missing = ['ip', 'nsenter'].filter((b) => !onPath(b));
  if (process.getuid?.() !== 0) missing.push('root');
  if (missing.length === 0) return true;
  if (process.env.KOVN_REQUIRE_OVN === '1') {
    throw new Error(`${ctx}: KOVN_REQUIRE_OVN=1 but network namespaces cannot be made: missing ${missing.join(', ')}`);
  }
  return false;
}

/** `ip` with arguments; resolves to stdout, rejects with stderr in the message. */
export async function ip(...args: string[]): Promise<string> {
  try {
    return (await exec('ip', args)).stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(' ')}: ${err.stderr?.trim() || err.message}`);
  }
}

/** `ip -j ...` parsed. */
export async function ipJson<T = unknown>(...args: string[]): Promise<T> {
  return JSON.parse(await ip('-j', ...args)) as T;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Namespaces and links of test runs whose process is gone (killed, crashed). */
async function sweepStale(): Promise<void> {
  let names: string[] = [];
  try {
    names = readdirSync(NETNS_DIR);
  } catch {
    return;
  }
  const dead = (id: string) => !alive(Number.parseInt(id, 36));
  for (const n of names) {
    const m = new RegExp(`^${NS_PREFIX}([0-9a-z]+)-`).exec(n);
    if (m?.[1] !== undefined && dead(m[1])) await ip('netns', 'del', n).catch(() => undefined);
  }
  const links = await ipJson<{ ifname: string }[]>('link', 'show').catch(() => []);
  for (const l of links) {
    const m = new RegExp(`^${LINK_PREFIX}([0-9a-z]+)_`).exec(l.ifname);
    if (m?.[1] !== undefined && dead(m[1])) await ip('link', 'del', l.ifname).catch(() => undefined);
  }
}

/**
 * Namespaces and host link names for one test file.
 *
 * @example
 * const fx = await NetnsFixture.create();
 * const ns = await fx.netns();          // { name: 'kovn-nlt-1a2b-0', path: '/run/netns/kovn-nlt-1a2b-0' }
 * const host = fx.linkName();           // 'nlt1a2b_0', deleted by cleanup() if it exists
 * await fx.cleanup();
 */
export class NetnsFixture {
  private readonly run = process.pid.toString(36);
  private readonly namespaces = new Set<string>();
  private readonly links = new Set<string>();

  private constructor() {}

  static async create(): Promise<NetnsFixture> {
    await sweepStale();
    return new NetnsFixture();
  }

  /** A new, empty namespace. */
  async netns(): Promise<{ name: string; path: string }> {
    const name = `${NS_PREFIX}${this.run}-${counter++}`;
    this.namespaces.add(name);
    await ip('netns', 'add', name);
    return { name, path: join(NETNS_DIR, name) };
  }

  /** A host link name of this run (at most 15 bytes), removed by cleanup() if it exists then. */
  linkName(): string {
    const name = `${LINK_PREFIX}${this.run}_${counter++}`;
    this.links.add(name);
    return name;
  }

  /** Removes what it made; never throws (a namespace a test already removed is fine). */
  async cleanup(): Promise<void> {
    for (const l of this.links) await ip('link', 'del', l).catch(() => undefined);
    for (const n of this.namespaces) await ip('netns', 'del', n).catch(() => undefined);
    this.links.clear();
    this.namespaces.clear();
  }

  /** Whether a host link of that name exists now. */
  static async hostLinkExists(name: string): Promise<boolean> {
    return ip('link', 'show', 'dev', name).then(
      () => true,
      () => false,
    );
  }
}
