/**
 * What the real-runtime tests need from the machine, and the few host tools
 * they run (`ip`, `tc`): root for network namespaces, podman with runc, a
 * static busybox for the image. As with OVN (requireOvn), a test whose needs
 * are missing skips, except under `KOVN_REQUIRE_OVN=1` (CI, `npm test`),
 * where it fails: scripts/test-all.mjs installs these from Debian.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { RuntimeError } from './errors.ts';

const EXTRA_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

function onPath(bin: string): boolean {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean).concat(EXTRA_DIRS);
  return dirs.some((d) => {
    try {
      accessSync(join(d, bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A statically linked ELF has no PT_INTERP program header: a dynamic busybox cannot run in an empty rootfs. */
export function isStaticElf(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2) return false;
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  const phnum = b.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const off = phoff + i * phentsize;
    if (off + 4 > b.length) return false;
    if (b.readUInt32LE(off) === 3) return false; // PT_INTERP
  }
  return true;
}

function staticBusybox(path: string): boolean {
  try {
    return isStaticElf(readFileSync(path));
  } catch {
    return false;
  }
}

/** What is missing for `needs`, by name. */
export function missingFor(needs: readonly ('netns' | 'podman')[]): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces)');
  for (const bin of ['ip', 'tc', 'nsenter']) if (!onPath(bin)) missing.push(bin);
  if (needs.includes('podman')) {
    for (const bin of ['podman', 'runc']) if (!onPath(bin)) missing.push(bin);
    if (!staticBusybox('/bin/busybox')) missing.push('a static /bin/busybox (busybox-static)');
  }
  return missing;
}

/**
 * True when the machine has what `needs` asks; false (skip) when not, unless
 * KOVN_REQUIRE_OVN=1, where a missing need throws so the suite fails.
 *
 * @example
 * describe.skipIf(!requireRuntime(['netns', 'podman'], 'podman calls kovn-cni'))('...', () => { ... })
 */
export function requireRuntime(needs: readonly ('netns' | 'podman')[], ctx: string): boolean {
  const missing = missingFor(needs);
  if (missing.length === 0) return true;
  if (process.env.KOVN_REQUIRE_OVN === '1') {
    throw new RuntimeError('tool-failed', `${ctx}: KOVN_REQUIRE_OVN=1 but missing: ${missing.join(', ')}`);
  }
  return false;
}

/**
 * Runs a host tool (`ip`, `tc`, ...) to completion; a non-zero exit throws
 * RuntimeError with its stderr.
 *
 * @example
 * await host('ip', ['netns', 'add', 'kovn-qos-1a2b-0']);
 */
export function host(cmd: string, args: readonly string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, [...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err !== null) {
        const detail = stderr.trim() || err.message;
        reject(new RuntimeError('tool-failed', `${cmd} ${args.join(' ')}: ${detail}`, { cause: err }));
        return;
      }
      resolve(stdout);
    });
  });
}

let counter = 0;

/**
 * A name carrying this process's id and a counter (at most 15 bytes for an
 * interface), so that parallel runs never collide and a crashed run's
 * leftovers say whose they were.
 *
 * @example
 * runName('kq') // 'kq-1f3a-0'
 */
export function runName(prefix: string): string {
  return `${prefix}-${process.pid.toString(36)}-${(counter++).toString(36)}`;
}

/**
 * Names and modification times of what is under the directories podman and
 * CNI read their configuration from by default: a test compares it before
 * and after, to show it wrote nothing there.
 *
 * @example
 * const before = etcSnapshot(); // ['/etc/cni/net.d/87-podman-bridge.conflist 1668300000000', ...]
 */
export function etcSnapshot(): string[] {
  const out: string[] = [];
  for (const d of ['/etc/cni/net.d', '/etc/containers']) {
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d)) out.push(`${d}/${f} ${statSync(join(d, f)).mtimeMs}`);
  }
  return out.sort();
}
