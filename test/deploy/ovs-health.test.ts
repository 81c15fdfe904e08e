/**
 * ovs-ovn's probe (deploy/scripts/ovs-health.sh) against the daemons as
 * ovs-ctl and ovn-ctl leave them: ovsdb-server, ovs-vswitchd (userspace
 * only: no kernel module here) and ovn-controller started with their
 * default pidfiles and control sockets in a temporary OVS_RUNDIR and
 * OVN_RUNDIR. It passes while all three run and fails once vswitchd is
 * gone, so the liveness probe restarts a broken node and only a broken one.
 * (start-ovs.sh itself needs the openvswitch kernel module and is not run.)
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { DEPLOY } from './manifests.ts';

const run = promisify(execFile);

describe.skipIf(!requireOvn('deploy: ovs-ovn probe'))('ovs-health.sh', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const pidfiles: string[] = [];

  /** Starts a daemon detached with its default pidfile and control socket (in the run dirs of `env`). */
  async function daemon(binary: string, rundir: string, args: string[]): Promise<void> {
    await run(binary, [...args, '--pidfile', '--detach', '--no-chdir', `--log-file=${join(dir, `${binary}.log`)}`], {
      env,
    });
    pidfiles.push(join(rundir, `${binary}.pid`));
  }
  const pidOf = async (file: string) => Number((await readFile(file, 'utf8')).trim());
  const probe = () => run('sh', [join(DEPLOY, 'scripts', 'ovs-health.sh')], { env });

  beforeAll(async () => {
    dir = await makeTempDir('deployovshealth');
    const ovs = join(dir, 'ovs');
    const ovn = join(dir, 'ovn');
    await run('mkdir', ['-p', ovs, ovn]);
    env = { ...process.env, OVS_RUNDIR: ovs, OVS_DBDIR: ovs, OVS_LOGDIR: dir, OVN_RUNDIR: ovn, OVN_LOGDIR: dir };
    await run('ovsdb-tool', ['create', join(ovs, 'conf.db'), '/usr/share/openvswitch/vswitch.ovsschema']);
    await daemon('ovsdb-server', ovs, [join(ovs, 'conf.db'), `--remote=punix:${join(ovs, 'db.sock')}`]);
    await run('ovs-vsctl', [`--db=unix:${join(ovs, 'db.sock')}`, '--no-wait', 'init']);
    await daemon('ovs-vswitchd', ovs, ['--disable-system', `unix:${join(ovs, 'db.sock')}`]);
    await daemon('ovn-controller', ovn, [`unix:${join(ovs, 'db.sock')}`]);
  });
  afterAll(async () => {
    for (const f of pidfiles) {
      const pid = await pidOf(f).catch(() => undefined);
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone (the test stopped it)
        }
      }
    }
    if (dir !== undefined) await removeTempDir(dir);
  });

  it('passes while ovsdb-server, ovs-vswitchd and ovn-controller answer', async () => {
    await probe();
  });

  it('fails once ovs-vswitchd is gone', async () => {
    const vswitchd = pidfiles.find((f) => f.endsWith('ovs-vswitchd.pid'))!;
    const pid = await pidOf(vswitchd);
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await expect(probe()).rejects.toThrow(/ovs-vswitchd/);
  });
});
