/**
 * `kovn ko ...`: kubectl-ko's subcommands, typed. `nbctl`/`sbctl` run
 * ovn-nbctl/ovn-sbctl on the cluster's databases; `status` is each
 * database's raft as its members say; `diagnose` finds where NB, the
 * objects and their annotations disagree (and raft problems); `trace`
 * traces one packet with ovn-trace over the live SB and with the simulator
 * over the objects, side by side. The databases come from the flags, the
 * cluster's ConfigMap kube-system/kovn-ovn, or OVN_NB_DB/OVN_SB_DB
 * (scenarios/ko/endpoints.ts).
 *
 * Exit codes: nbctl/sbctl, the tool's own; status 0 healthy, 1 a problem;
 * diagnose 0 nothing found, 1 findings; trace 0 both sides agree, 1 not.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { SETTING_FLAGS, settingsFromFlags } from '../controller/config.ts';
import type { ClusterSource } from '../kube/cluster/types.ts';
import { type ClusterFlags, clusterOptions, openCluster } from './cluster-source.ts';
import { type DbStatus, diagnoseLines, findings, koTraceLines, statusLines } from './ko-output.ts';
import { wholeNumber } from './options.ts';

type KoFlags = ClusterFlags & {
  nb?: string;
  sb?: string;
  nbCtl?: string;
  sbCtl?: string;
  json?: boolean;
} & Record<string, unknown>;

const print = (lines: readonly string[]) => {
  for (const l of lines) process.stdout.write(`${l}\n`);
};

/** The options every subcommand takes: where the cluster and its databases are. */
function endpointOptions(cmd: Command, json = true): Command {
  clusterOptions(cmd, 'the objects and ConfigMap kube-system/kovn-ovn');
  cmd
    .option('--nb <remote>', 'the NB database (ovn-nbctl --db syntax)')
    .option('--sb <remote>', 'the SB database')
    .option('--nb-ctl <paths>', "the NB members' unixctl sockets, comma-separated")
    .option('--sb-ctl <paths>', "the SB members' unixctl sockets, comma-separated");
  if (json) cmd.option('--json', 'print JSON');
  return cmd;
}

/** Runs `f` with the cluster the flags name (if any) and the endpoints found; closes the cluster after. */
async function withEndpoints<T>(
  flags: KoFlags,
  f: (
    e: import('../scenarios/ko/endpoints.ts').OvnEndpoints,
    cluster: ClusterSource | undefined,
    mod: typeof import('../scenarios/ko/endpoints.ts'),
  ) => Promise<T>,
): Promise<T> {
  const mod = await import('../scenarios/ko/endpoints.ts');
  const cluster = await openCluster(flags);
  try {
    const e = await mod.resolveEndpoints({
      flags: {
        ...(flags.nb ? { nb: flags.nb } : {}),
        ...(flags.sb ? { sb: flags.sb } : {}),
        ...(flags.nbCtl ? { nbCtl: flags.nbCtl } : {}),
        ...(flags.sbCtl ? { sbCtl: flags.sbCtl } : {}),
      },
      env: process.env,
      ...(cluster ? { cluster } : {}),
    });
    return await f(e, cluster, mod);
  } finally {
    cluster?.close();
  }
}

/** kube-ovn-controller's flags (the settings the cluster's controller runs with), as `kovn sim run` takes them. */
function settingOptions(cmd: Command): Command {
  for (const flag of Object.values(SETTING_FLAGS)) cmd.option(`--${flag} <value>`, `kube-ovn-controller's --${flag}`);
  return cmd;
}

function settingsOf(flags: KoFlags) {
  const given: Record<string, string> = {};
  for (const flag of Object.values(SETTING_FLAGS)) {
    const v = flags[flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())];
    if (typeof v === 'string') given[flag] = v;
  }
  const r = settingsFromFlags(given);
  if (r.issues.length > 0) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.settings;
}

/** ovn-nbctl or ovn-sbctl with `--db` set, stdio passed through; exits with its code. */
function registerPassthrough(ko: Command, name: 'nbctl' | 'sbctl'): void {
  const db = name === 'nbctl' ? 'nb' : 'sb';
  const cmd = ko
    .command(`${name} [args...]`)
    .description(
      `ovn-${name} on the cluster's ${db.toUpperCase()} database (ovn-${name}'s options before its command, or all after --)`,
    )
    .allowUnknownOption();
  endpointOptions(cmd, false);
  cmd.action(async (args: string[], flags: KoFlags) => {
    const remote = await withEndpoints(flags, async (e, _c, mod) => mod.need(e, db));
    const { binaryPath } = await import('../backends/ovn/control-plane/index.ts');
    const child = spawn(binaryPath(`ovn-${name}`), [`--db=${remote}`, ...args], { stdio: 'inherit' });
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
    });
    process.exitCode = code;
  });
}

function registerStatus(ko: Command): void {
  const cmd = ko.command('status').description("the NB and SB raft clusters as their members' cluster/status say");
  endpointOptions(cmd);
  cmd.action(async (flags: KoFlags) => {
    const cp = await import('../backends/ovn/control-plane/index.ts');
    const dbs = await withEndpoints(flags, async (e, _c, mod) => {
      if (e.nbCtl === undefined && e.sbCtl === undefined) mod.need(e, 'nbCtl');
      const out: DbStatus[] = [];
      for (const [db, ctl] of [
        ['OVN_Northbound', e.nbCtl],
        ['OVN_Southbound', e.sbCtl],
      ] as const) {
        if (ctl === undefined) continue;
        const members = await Promise.all(ctl.value.map((c) => cp.memberView(c, db)));
        out.push({ db, members, problems: cp.raftHealth(members) });
      }
      return out;
    });
    process.exitCode = dbs.some((d) => d.problems.length > 0) ? 1 : 0;
    if (flags.json) process.stdout.write(`${JSON.stringify({ databases: dbs })}\n`);
    else print(statusLines(dbs));
  });
}

function registerDiagnose(ko: Command): void {
  const cmd = ko
    .command('diagnose')
    .description(
      "rows of kovn's in NB no object explains, objects without their rows, annotations that disagree with IPAM, raft health",
    );
  settingOptions(endpointOptions(cmd));
  cmd.action(async (flags: KoFlags) => {
    const settings = settingsOf(flags);
    const d = await withEndpoints(flags, async (e, cluster, mod) => {
      if (cluster === undefined) throw new mod.KoError('no-cluster', 'diagnose needs the cluster: give --kubeconfig');
      const nbRemote = mod.need(e, 'nb');
      const cp = await import('../backends/ovn/control-plane/index.ts');
      const raft = async (ctl: readonly string[] | undefined, db: string) =>
        ctl === undefined ? [] : cp.raftHealth(await Promise.all(ctl.map((c) => cp.memberView(c, db))));
      const { OvnBackend } = await import('../backends/ovn/nb/index.ts');
      const nb = await OvnBackend.connect({ remotes: nbRemote });
      try {
        const { diagnose } = await import('../scenarios/ko/diagnose.ts');
        const { realClock } = await import('../kube/runtime/clock.ts');
        return await diagnose({
          cluster,
          nb: await nb.read(),
          clock: realClock,
          settings,
          raft: { nb: await raft(e.nbCtl?.value, 'OVN_Northbound'), sb: await raft(e.sbCtl?.value, 'OVN_Southbound') },
        });
      } finally {
        await nb.close();
      }
    });
    process.exitCode = findings(d) === 0 ? 0 : 1;
    if (flags.json) process.stdout.write(`${JSON.stringify(d)}\n`);
    else print(diagnoseLines(d));
  });
}

function registerKoTrace(ko: Command): void {
  const cmd = ko
    .command('trace <from> <to> <protocol> [port]')
    .description(
      'one packet from a pod (ns/pod) to an IP, ns/pod or svc/ns/name: ovn-trace over the live SB beside the simulator over the objects',
    );
  settingOptions(endpointOptions(cmd));
  cmd.action(async (from: string, to: string, protocol: string, port: string | undefined, flags: KoFlags) => {
    const probe = koProbe(from, to, protocol, port);
    const settings = settingsOf(flags);
    const t = await withEndpoints(flags, async (e, cluster, mod) => {
      if (cluster === undefined) throw new mod.KoError('no-cluster', 'trace needs the cluster: give --kubeconfig');
      const { koTrace } = await import('../scenarios/ko/trace.ts');
      const { realClock } = await import('../kube/runtime/clock.ts');
      return koTrace(probe, { cluster, nb: mod.need(e, 'nb'), sb: mod.need(e, 'sb'), clock: realClock, settings });
    });
    process.exitCode = t.agree ? 0 : 1;
    if (flags.json) {
      const { traceReportJSON } = await import('../scenarios/trace.ts');
      const sim = { ...t.sim, ...(t.sim.trace ? { trace: traceReportJSON(t.sim.trace) } : {}) };
      process.stdout.write(`${JSON.stringify({ ...t, sim })}\n`);
      return;
    }
    const { formatTrace } = await import('../sim/trace.ts');
    print(koTraceLines(t, formatTrace));
  });
}

/** The probe the trace's arguments say. */
function koProbe(from: string, to: string, protocol: string, port: string | undefined) {
  const p = protocol.toUpperCase();
  if (!['TCP', 'UDP', 'SCTP', 'ICMP'].includes(p))
    throw new Error(`protocol: expected TCP, UDP, SCTP or ICMP, got ${JSON.stringify(protocol)}`);
  if (p === 'ICMP' && port !== undefined) throw new Error('port: ICMP has no port');
  if (p !== 'ICMP' && port === undefined) throw new Error(`port: ${p} needs a port 1..65535`);
  return {
    from,
    to,
    protocol: p as 'TCP' | 'UDP' | 'SCTP' | 'ICMP',
    ...(port !== undefined ? { port: wholeNumber('port', 1, 65535)(port) } : {}),
    allowed: true,
  };
}

/**
 * `kovn ko` and its subcommands.
 *
 * @example registerKo(program); // kovn ko diagnose --kubeconfig k.yaml
 */
export function registerKo(program: Command): void {
  const ko = program.command('ko').description("kubectl-ko's subcommands: nbctl, sbctl, status, diagnose, trace");
  registerPassthrough(ko, 'nbctl');
  registerPassthrough(ko, 'sbctl');
  registerStatus(ko);
  registerDiagnose(ko);
  registerKoTrace(ko);
}
