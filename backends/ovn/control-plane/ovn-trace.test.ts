import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControlPlaneError,
  requireOvn,
  runTool,
  startControlPlane,
  startOvnTrace,
  type ControlPlane,
  type OvnTraceDaemon,
} from './index.ts';

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const P1_TO_P2 = 'inport=="p1" && eth.src==00:00:00:00:00:01 && eth.dst==00:00:00:00:00:02';

describe.skipIf(!requireOvn('ovn-trace'))('ovn-trace daemon over a real southbound DB', () => {
  let cp: ControlPlane;
  let tracer: OvnTraceDaemon;
  const nbctl = (...args: string[]) => runTool('ovn-nbctl', [`--db=${cp.nb.remote}`, ...args]);

  beforeAll(async () => {
    cp = await startControlPlane();
    await nbctl('ls-add', 'ls');
    await nbctl('lsp-add', 'ls', 'p1', '--', 'lsp-set-addresses', 'p1', '00:00:00:00:00:01 10.0.0.1');
    await nbctl('lsp-add', 'ls', 'p2', '--', 'lsp-set-addresses', 'p2', '00:00:00:00:00:02 10.0.0.2');
    await nbctl('--timeout=20', '--wait=sb', 'sync');
    tracer = await startOvnTrace({ dir: cp.dir, sbRemote: cp.sb.remote });
  });
  afterAll(async () => {
    await tracer?.stop();
    await cp?.stop();
  });

  it('traces p1 → p2 on a switch through the daemon', async () => {
    const text = await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2 });
    expect(text.startsWith('# ')).toBe(true);
    expect(text).toContain('ingress(dp="ls", inport="p1")');
    expect(text).toContain('ls_in_l2_lkup');
    expect(text).toMatch(/output to "p2"|output\("p2"\)/);
    expect(tracer.stats.daemonTraces).toBeGreaterThanOrEqual(1);
    expect(tracer.stats.oneShotTraces).toBe(0);
    expect(pidExists(tracer.pid)).toBe(true);
  });

  it('passes the output format through appctl', async () => {
    const text = await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2, extraArgs: ['--minimal'] });
    expect(text).toContain('output("p2");');
    expect(text).not.toContain('ls_in_l2_lkup');
  });

  it('rejects what the 23.03 daemon does not accept, and bad queries, as trace-failed', async () => {
    const bad = [
      { datapath: 'ls', microflow: P1_TO_P2, extraArgs: ['--no-friendly-names'] }, // "unknown option"
      { datapath: 'nosuch', microflow: P1_TO_P2 }, // "unknown datapath", as reply text
      { datapath: 'ls', microflow: 'inport=="p1" && bogus' }, // "error parsing flow", as reply text
    ];
    for (const args of bad) {
      const err = await tracer.trace(args).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ControlPlaneError);
      expect((err as ControlPlaneError).code).toBe('trace-failed');
    }
    expect((await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2 })).length).toBeGreaterThan(0);
  });

  it('--ct goes through a one-shot ovn-trace on the current southbound', async () => {
    await nbctl('acl-add', 'ls', 'from-lport', '1001', 'ip4', 'allow-related');
    await nbctl('--timeout=20', '--wait=sb', 'sync');
    const flow = `${P1_TO_P2} && ip4.src==10.0.0.1 && ip4.dst==10.0.0.2 && ip.ttl==64 && tcp && tcp.dst==80`;
    const before = tracer.stats.oneShotTraces;
    const text = await tracer.trace({ datapath: 'ls', microflow: flow, ct: ['new'] });
    expect(tracer.stats.oneShotTraces).toBe(before + 1);
    expect(text).toContain('ct_next(ct_state=new|trk)');
    expect(text).toMatch(/output to "p2"/);
  });

  it('reload() makes the daemon see southbound changes made after it started', async () => {
    await nbctl('lsp-add', 'ls', 'p3', '--', 'lsp-set-addresses', 'p3', '00:00:00:00:00:03 10.0.0.3');
    await nbctl('--timeout=20', '--wait=sb', 'sync');
    const oldPid = tracer.pid;
    await tracer.reload();
    expect(tracer.pid).not.toBe(oldPid);
    const text = await tracer.trace({
      datapath: 'ls',
      microflow: 'inport=="p3" && eth.src==00:00:00:00:00:03 && eth.dst==00:00:00:00:00:01',
      extraArgs: ['--minimal'],
    });
    expect(text).toContain('output("p1");');
  });

  it('a trace that kills the daemon (23.03 asserts on a microflow without inport) fails, and the daemon is restarted', async () => {
    const oldPid = tracer.pid;
    const err = await tracer
      .trace({ datapath: 'ls', microflow: 'eth.dst==00:00:00:00:00:02' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect((err as ControlPlaneError).code).toBe('trace-failed');
    expect((err as ControlPlaneError).message).toContain('died tracing ls');
    expect(tracer.pid).not.toBe(oldPid);
    expect(await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2 })).toMatch(/output to "p2"/);
  });

  it('a killed daemon: the next trace fails and restarts it', async () => {
    await tracer.kill();
    const err = await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2 }).catch((e: unknown) => e);
    expect((err as ControlPlaneError).code).toBe('trace-failed');
    expect(await tracer.trace({ datapath: 'ls', microflow: P1_TO_P2 })).toMatch(/output to "p2"/);
  });

  it('stop() ends the daemon', async () => {
    const extra = await startOvnTrace({ dir: cp.dir, sbRemote: cp.sb.remote, name: 'tr2' });
    expect(extra.ctl).toBe(`${cp.dir}/tr2.ctl`);
    await extra.stop();
    const err = await runTool('ovn-appctl', ['-t', extra.ctl, 'version']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
  });
});
