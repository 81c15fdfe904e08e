/**
 * A real container runtime calling our CNI plugin: podman 4.3 (Debian 12)
 * with its CNI network backend, set up entirely in a temp dir. Nothing is
 * written under /etc: `CONTAINERS_CONF` names a containers.conf in the dir,
 * whose `network_config_dir` (the conflists) and `cni_plugin_dirs` (where a
 * conflist's `type` is looked up) point into the dir too; images and
 * containers live in a vfs store under the dir (`--root`, `--runroot`).
 *
 * Facts this relies on (podman 4.3.1, measured here):
 * - podman sends `CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=<container name>`
 *   and no K8S_POD_NAMESPACE; CNI_IFNAME is `eth0`, CNI_NETNS a path
 *   `/run/netns/netns-<uuid>` that podman creates before ADD and removes
 *   after DEL; DEL gets the ADD result as `prevResult`;
 * - an ADD result whose interface has no `mac` is refused ("invalid MAC
 *   address") and the container does not start;
 * - these VMs need `default_ulimits = []` (low hard limits), runc (crun
 *   refuses the hybrid cgroup layout) and the cgroupfs manager;
 * - nothing can be pulled: the image is a busybox-static rootfs imported
 *   from a tar ({@link Podman.importBusybox}).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from './errors.ts';

/** The busybox applets the image links (all a test container runs). */
const APPLETS = ['sh', 'ip', 'ping', 'nc', 'sleep', 'cat', 'wget', 'ls', 'echo', 'true'];
/** Debian's busybox-static puts a statically linked busybox here. */
export const BUSYBOX = '/bin/busybox';

export interface PodmanOptions {
  /** An empty directory for the configuration, the store and the conflists (a run dir). */
  readonly dir: string;
  /** Directories `type` is looked up in (cni_plugin_dirs): where the plugin executable is. */
  readonly pluginDirs: readonly string[];
  /** Bound on one podman command; default 60 s. */
  readonly timeoutMs?: number;
}

export interface PodmanRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
}

/** The conflist (CNI 1.0 network configuration list) podman reads for a network. */
export interface Conflist {
  readonly cniVersion: string;
  readonly name: string;
  readonly plugins: readonly Readonly<Record<string, unknown>>[];
}

function containersConf(o: { netDir: string; pluginDirs: readonly string[]; tmpDir: string }): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    '[containers]',
    'default_ulimits = []',
    '[network]',
    'network_backend = "cni"',
    `network_config_dir = ${q(o.netDir)}`,
    `cni_plugin_dirs = [${o.pluginDirs.map(q).join(', ')}]`,
    '[engine]',
    'runtime = "runc"',
    'cgroup_manager = "cgroupfs"',
    `tmp_dir = ${q(o.tmpDir)}`,
    '',
  ].join('\n');
}

/**
 * podman confined to one directory.
 *
 * @example
 * const pm = Podman.setup({ dir, pluginDirs: [pluginDir] });
 * pm.addNetwork({ cniVersion: '1.0.0', name: 'kovn', plugins: [{ type: 'kovn-cni' }] });
 * const image = await pm.importBusybox();
 * await pm.run(['-d', '--name', 'web', '--network', 'kovn', image, 'sleep', '600']);
 * await pm.exec('web', ['ip', '-4', 'addr', 'show', 'eth0']);
 * await pm.removeAll();
 */
export class Podman {
  readonly #conf: string;
  readonly #netDir: string;
  readonly #storage: string;
  readonly #runroot: string;
  readonly #timeoutMs: number;

  private constructor(readonly opts: PodmanOptions) {
    this.#conf = join(opts.dir, 'containers.conf');
    this.#netDir = join(opts.dir, 'net.d');
    this.#storage = join(opts.dir, 'storage');
    this.#runroot = join(opts.dir, 'runroot');
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /** Writes containers.conf and the empty network config dir; starts nothing. */
  static setup(opts: PodmanOptions): Podman {
    const pm = new Podman(opts);
    const tmpDir = join(opts.dir, 'tmp');
    for (const d of [pm.#netDir, pm.#storage, pm.#runroot, tmpDir]) mkdirSync(d, { recursive: true });
    writeFileSync(pm.#conf, containersConf({ netDir: pm.#netDir, pluginDirs: opts.pluginDirs, tmpDir }));
    return pm;
  }

  /** The directory podman reads conflists from. */
  get networkConfigDir(): string {
    return this.#netDir;
  }

  /** Writes `<name>.conflist`; podman reads it at the next command. */
  addNetwork(c: Conflist): string {
    const file = join(this.#netDir, `${c.name}.conflist`);
    writeFileSync(file, `${JSON.stringify(c, null, 2)}\n`);
    return file;
  }

  /** Runs `podman <args>` with this dir's configuration; never throws on a non-zero exit. */
  command(args: readonly string[]): Promise<PodmanRun> {
    const full = ['--root', this.#storage, '--runroot', this.#runroot, '--storage-driver', 'vfs', ...args];
    const env = { ...process.env, CONTAINERS_CONF: this.#conf };
    return new Promise((resolve, reject) => {
      execFile(
        'podman',
        full,
        { env, timeout: this.#timeoutMs, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          if (err !== null && typeof err.code !== 'number') {
            const how = err.killed ? `killed after ${this.#timeoutMs} ms` : String(err.code ?? err.message);
            reject(new RuntimeError('podman-failed', `podman ${args.join(' ')}: ${how}`, { cause: err }));
            return;
          }
          resolve({ stdout, stderr, code: err === null ? 0 : Number(err.code) });
        },
      );
    });
  }

  /** Like {@link command}, but a non-zero exit throws RuntimeError naming the command and its stderr. */
  async ok(args: readonly string[]): Promise<string> {
    const r = await this.command(args);
    if (r.code !== 0) {
      const detail = r.stderr.trim() || r.stdout.trim();
      throw new RuntimeError('podman-failed', `podman ${args.join(' ')}: exit ${r.code}: ${detail}`);
    }
    return r.stdout;
  }

  /** `podman run <args>`; the container id for `-d`, the output otherwise. */
  run(args: readonly string[]): Promise<string> {
    return this.ok(['run', ...args]).then((s) => s.trim());
  }

  exec(container: string, argv: readonly string[]): Promise<PodmanRun> {
    return this.command(['exec', container, ...argv]);
  }

  /** `podman inspect --format FORMAT name`, trimmed. */
  async inspect(name: string, format: string): Promise<string> {
    return (await this.ok(['inspect', '--format', format, name])).trim();
  }

  /**
   * Imports a rootfs holding only the static busybox and its applet links as
   * `localhost/<tag>`; returns the image name.
   */
  async importBusybox(tag = 'kovn-busybox:1'): Promise<string> {
    const root = join(this.opts.dir, 'rootfs');
    mkdirSync(join(root, 'bin'), { recursive: true });
    // /etc/hosts and /etc/resolv.conf are bind-mounted by podman; their directory must exist.
    mkdirSync(join(root, 'etc'), { recursive: true });
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    for (const a of APPLETS) symlinkSync('busybox', join(root, 'bin', a));
    const tar = join(this.opts.dir, 'rootfs.tar');
    await new Promise<void>((resolve, reject) =>
      execFile('tar', ['-C', root, '-cf', tar, '.'], (e) => (e === null ? resolve() : reject(e))),
    );
    const image = `localhost/${tag}`;
    await this.ok(['import', '-q', tar, image]);
    return image;
  }

  /** Removes every container (stopped at once) and image of this store. */
  async removeAll(): Promise<void> {
    await this.command(['rm', '--all', '--force', '--time', '0']);
    await this.command(['rmi', '--all', '--force']);
  }
}
