import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControlPlaneError,
  NB_SCHEMA,
  makeTempDir,
  requireOvn,
  runTool,
  startControlPlane,
  startOvsdbServer,
  trackedPids,
  type ControlPlane,
} from './index.ts';
import { pollUntil } from './exec.ts';

/** `kill -0`: true while the pid exists (a zombie counts: it was not reaped). */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const nbctl = (cp: ControlPlane, ...args: string[]) => runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, ...args]);

describe.skipIf(!requireOvn('control-plane'))('local control plane (real ovsdb-server + ovn-northd)', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({ tcp: true });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('serves NB and SB on unix sockets in its dir and on loopback TCP', async () => {
    expect(cp.nb.remote).toBe(`unix:${cp.dir}/nb.sock`);
    expect(cp.sb.remote).toBe(`unix:${cp.dir}/sb.sock`);
    expect(cp.nb.tcpRemote).toMatch(/^tcp:127\.0\.0\.1:\d+$/);
    expect(cp.sb.tcpRemote).toMatch(/^tcp:127\.0\.0\.1:\d+$/);
    expect(cp.nb.tcpRemote).not.toBe(cp.sb.tcpRemote);
    const dbs = await runTool('ovsdb-client', ['list-dbs', cp.nb.tcpRemote ?? '']);
    expect(dbs.stdout).toContain('OVN_Northbound');
    expect((await runTool('ovsdb-client', ['list-dbs', cp.sb.remote])).stdout).toContain('OVN_Southbound');
    for (const h of [cp.nb, cp.sb, cp.northd]) {
      expect(h).toBeDefined();
      expect(pidExists(h?.pid ?? 0)).toBe(true);
      expect(existsSync(h?.ctl ?? '')).toBe(true);
      expect(existsSync(h?.logFile ?? '')).toBe(true);
    }
    expect(trackedPids().map((t) => t.pid)).toEqual(expect.arrayContaining([cp.nb.pid, cp.sb.pid, cp.northd?.pid]));
  });

  it('northd turns an NB logical switch into an SB Datapath_Binding', async () => {
    await nbctl(cp, 'ls-add', 'sw0');
    const row = await pollUntil(
      async () => {
        const { stdout } = await runTool('ovn-sbctl', [`--db=${cp.sb.remote}`, 'list', 'Datapath_Binding']);
        return stdout.includes('name=sw0') ? stdout : undefined;
      },
      { timeoutMs: 20_000, onTimeout: () => new Error('no Datapath_Binding for sw0 after 20 s') },
    );
    expect(row).toMatch(/tunnel_key\s*:\s*\d+/);
  });

  it('ovsdb-server killed with SIGKILL restarts on the same file and remotes with its data', async () => {
    await nbctl(cp, 'ls-add', 'before-kill');
    const oldPid = cp.nb.pid;
    const tcp = cp.nb.tcpRemote;
    await cp.nb.kill();
    expect(pidExists(oldPid)).toBe(false);
    await expect(runTool('ovsdb-client', ['--timeout=2', 'list-dbs', cp.nb.remote])).rejects.toThrow(ControlPlaneError);

    await cp.nb.restart();
    expect(cp.nb.pid).not.toBe(oldPid);
    expect(cp.nb.tcpRemote).toBe(tcp);
    const list = await runTool('ovn-nbctl', [`--db=${tcp}`, 'ls-list']);
    expect(list.stdout).toContain('(before-kill)');
    expect(list.stdout).toContain('(sw0)');
    // northd reconnects by itself: a new switch still reaches the SB.
    await nbctl(cp, '--timeout=20', '--wait=sb', 'ls-add', 'after-restart');
    const sb = await runTool('ovn-sbctl', [`--db=${cp.sb.remote}`, 'list', 'Datapath_Binding']);
    expect(sb.stdout).toContain('name=after-restart');
  });
});

describe.skipIf(!requireOvn('control-plane'))('stopping', () => {
  it('stop() leaves no process, pidfile or socket behind, and removes its own temp dir', async () => {
    const cp = await startControlPlane();
    const handles = [cp.nb, cp.sb, cp.northd].filter((h) => h !== undefined);
    expect(handles).toHaveLength(3);
    const pids = handles.map((h) => h.pid);
    await cp.stop();
    for (const pid of pids) expect(pidExists(pid)).toBe(false);
    for (const h of handles) expect(existsSync(h.pidfile)).toBe(false);
    expect(existsSync(cp.dir)).toBe(false);
    expect(trackedPids().map((t) => t.pid)).not.toEqual(expect.arrayContaining([pids[0]]));
  });

  it('a caller-provided dir is kept, and northd can be left out', async () => {
    const dir = await makeTempDir('keep');
    const cp = await startControlPlane({ dir, northd: false });
    expect(cp.northd).toBeUndefined();
    expect(cp.dir).toBe(dir);
    await cp.stop();
    expect(pidExists(cp.nb.pid)).toBe(false);
    expect(existsSync(`${dir}/nb.db`)).toBe(true);
    expect(existsSync(`${dir}/nb.log`)).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });
});

describe.skipIf(!requireOvn('control-plane'))('start failures are clear errors', () => {
  const dirs: string[] = [];
  const tempDir = async (prefix: string) => {
    const dir = await makeTempDir(prefix);
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('a corrupt database file: start-failed naming the daemon, with the log tail', async () => {
    const dir = await tempDir('bad');
    await writeFile(`${dir}/broken.db`, 'this is not an ovsdb file\n');
    const err = await startOvsdbServer({ dir, name: 'broken', schema: NB_SCHEMA }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect((err as ControlPlaneError).code).toBe('start-failed');
    expect((err as ControlPlaneError).message).toContain(`ovsdb-server broken in ${dir}`);
    expect((err as ControlPlaneError).message).toContain(`${dir}/broken.log`);
    expect(trackedPids().filter((t) => t.name === 'broken')).toEqual([]);
  });

  it('a socket path over the unix limit is refused before anything starts', async () => {
    const dir = await tempDir('x'.repeat(100));
    const err = await startOvsdbServer({ dir, name: 'nb', schema: NB_SCHEMA }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect((err as ControlPlaneError).message).toMatch(/over the 107-byte limit/);
  });

  it('a taken TCP port: port-in-use, and the server is not left running', async () => {
    const dir = await tempDir('port');
    const first = await startOvsdbServer({ dir, name: 'a', schema: NB_SCHEMA, tcpPort: 0 });
    try {
      const port = Number(first.tcpRemote?.split(':')[2]);
      const err = await startOvsdbServer({ dir, name: 'b', schema: NB_SCHEMA, tcpPort: port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ControlPlaneError);
      expect((err as ControlPlaneError).code).toBe('port-in-use');
      expect(trackedPids().filter((t) => t.name === 'b')).toEqual([]);
    } finally {
      await first.stop();
    }
  });
});
