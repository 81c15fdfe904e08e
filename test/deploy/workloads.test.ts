/**
 * deploy/'s workloads fit together and fit kovn: one image, built by the
 * Containerfile, for every container; the scripts they run exist and parse;
 * the CNI conflist is one kovn's plugin accepts, names the executable the
 * installer writes and the socket the daemon listens on, which the host
 * shares between them; the daemon and ovs-ovn share conf.db's socket; the
 * controller runs replicas with probes on its metrics port; and the
 * installer, run for real into temporary folders, leaves a plugin that
 * answers a runtime.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ensurePluginBuilt } from '../../node/bundle/build.ts';
import { BUNDLE_ENTRIES } from '../../node/bundle/entries.ts';
import { checkConfig } from '../../node/cni/config.ts';
import { DEPLOY, ROOT, readManifests } from './manifests.ts';
import { grantsOf } from './rbac.ts';
import { allContainers, commandLine, envValue, flagValue, hostPathOf, workloads } from './workloads.ts';

const run = promisify(execFile);
const manifests = readManifests(DEPLOY);
const all = workloads(manifests);
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const byName = (name: string) => all.find((w) => w.name === name)!;
const container = (w: string, c: string) => allContainers(byName(w).pod).find((x) => x.name === c)!;
/** Where the Containerfile puts the repository. */
const IMAGE_ROOT = '/kovn';

const conflistText = (() => {
  const cm = manifests.find((m) => m.object.kind === 'ConfigMap' && m.object.metadata.name === 'kovn-cni-config');
  const data = (cm?.object.data ?? {}) as Record<string, string>;
  return data['01-kovn.conflist'] ?? '';
})();

describe('deploy/ workloads', () => {
  it('are the controller, the node agent, ovn-central and ovs-ovn, all on one image of this version', () => {
    expect(all.map((w) => `${w.kind}/${w.name}`).sort()).toEqual([
      'DaemonSet/kovn-node',
      'DaemonSet/ovs-ovn',
      'Deployment/kovn-controller',
      'Deployment/ovn-central',
    ]);
    const images = new Set(all.flatMap((w) => allContainers(w.pod).map((c) => c.image)));
    expect([...images]).toEqual([`localhost/kovn:${version}`]);
  });

  it('run scripts that exist in the image (the Containerfile copies deploy/) and parse as sh', async () => {
    const file = readFileSync(join(DEPLOY, 'Containerfile'), 'utf8');
    expect(file).toMatch(new RegExp(`^WORKDIR ${IMAGE_ROOT}$`, 'm'));
    expect(file).toMatch(/^COPY deploy deploy$/m);
    const paths = all.flatMap((w) =>
      allContainers(w.pod).flatMap((c) => [
        ...commandLine(c),
        ...(c.livenessProbe?.exec?.command ?? []),
        ...(c.readinessProbe?.exec?.command ?? []),
      ]),
    );
    const scripts = [...new Set(paths.filter((p) => p.startsWith(`${IMAGE_ROOT}/`)))];
    expect(scripts.length).toBeGreaterThanOrEqual(5);
    for (const s of scripts) {
      const local = join(ROOT, s.slice(IMAGE_ROOT.length + 1));
      expect(existsSync(local), s).toBe(true);
      await run('sh', ['-n', local]);
    }
  });

  it('the Containerfile copies every folder the CLI imports and builds the bundle the installer copies', () => {
    const file = readFileSync(join(DEPLOY, 'Containerfile'), 'utf8');
    expect(file).toMatch(/^FROM docker\.io\/library\/node:20/m);
    expect(file).toMatch(/npm ci --omit=dev/);
    expect(file).toMatch(/npm run build:node/);
    const copied = [...file.matchAll(/^COPY (\S+) \1$/gm)].map((m) => m[1]);
    for (const layer of ['model', 'sim', 'backends', 'kube', 'controller', 'node', 'verify', 'scenarios', 'bench'])
      expect(copied, layer).toContain(layer);
    expect(copied).toContain('cli');
    const plugin = BUNDLE_ENTRIES.find((e) => e.dir === 'cni')!;
    expect(readFileSync(join(DEPLOY, 'scripts', 'install-cni.sh'), 'utf8')).toContain(
      `$KOVN_DIR/dist/${plugin.dir}/${plugin.name}`,
    );
  });

  it("the conflist is accepted by kovn's plugin, names the installed executable and the daemon's socket", () => {
    const list = JSON.parse(conflistText) as { cniVersion: string; name: string; plugins: Record<string, unknown>[] };
    expect(list.plugins).toHaveLength(1);
    const conf = { ...list.plugins[0], name: list.name, cniVersion: list.cniVersion };
    const checked = checkConfig(conf, list.cniVersion, 'ADD');
    expect(checked).toMatchObject({ ok: true, value: { warnings: [] } });
    if (!checked.ok) return;
    expect(checked.value.conf.type).toBe('kovn-cni');
    expect(BUNDLE_ENTRIES.find((e) => e.dir === 'cni')?.aliases).toContain('kovn-cni');
    const node = byName('kovn-node').pod;
    const daemon = container('kovn-node', 'kovn-daemon');
    expect(flagValue(commandLine(daemon), 'socket')).toBe(checked.value.conf.serverSocket);
    // The plugin runs on the host: the socket must be where the host sees it.
    expect(hostPathOf(node, daemon, checked.value.conf.serverSocket)).toBe(checked.value.conf.serverSocket);
  });

  it('the installer writes into the host folders the runtime reads, and the daemon sees them', () => {
    const node = byName('kovn-node').pod;
    const install = container('kovn-node', 'install-cni');
    expect(hostPathOf(node, install, envValue(install, 'CNI_BIN_DIR')!)).toBe('/opt/cni/bin');
    expect(hostPathOf(node, install, envValue(install, 'CNI_CONF_DIR')!)).toBe('/etc/cni/net.d');
    const conflist = envValue(install, 'CNI_CONFLIST')!;
    const mount = install.volumeMounts!.find((m) => conflist.startsWith(`${m.mountPath}/`))!;
    expect(node.volumes!.find((v) => v.name === mount.name)?.configMap?.name).toBe('kovn-cni-config');
    const daemon = container('kovn-node', 'kovn-daemon');
    for (const p of ['/run/openvswitch', '/var/run/netns', '/run/kovn', '/opt/cni/bin', '/etc/cni/net.d'])
      expect(hostPathOf(node, daemon, p), p).toBe(p);
    expect(daemon.volumeMounts!.find((m) => m.mountPath === '/var/run/netns')?.mountPropagation).toBe(
      'HostToContainer',
    );
    expect(node.hostNetwork).toBe(true);
    expect(daemon.securityContext?.privileged).toBe(true);
  });

  it("the daemon's conf.db socket is the one ovs-ovn's ovsdb-server makes, on the same host path", () => {
    const daemon = container('kovn-node', 'kovn-daemon');
    const db = flagValue(commandLine(daemon), 'ovs-db')!;
    expect(db).toMatch(/^unix:/);
    const onHost = hostPathOf(byName('kovn-node').pod, daemon, db.slice('unix:'.length));
    const ovs = container('ovs-ovn', 'openvswitch');
    // start-ovs.sh's OVS_RUNDIR default; ovsdb-server's socket there is db.sock.
    expect(hostPathOf(byName('ovs-ovn').pod, ovs, '/var/run/openvswitch/db.sock')).toBe(onHost);
  });

  it('the controller runs two or more replicas, probed on its metrics port at /healthz and /readyz', () => {
    const w = byName('kovn-controller');
    expect(w.replicas).toBeGreaterThanOrEqual(2);
    for (const [name, c] of [
      ['kovn-controller', container('kovn-controller', 'kovn-controller')],
      ['kovn-node', container('kovn-node', 'kovn-daemon')],
    ] as const) {
      const port = Number(flagValue(commandLine(c), 'metrics-addr')?.split(':').at(-1));
      expect(c.livenessProbe?.httpGet, name).toEqual({ path: '/healthz', port });
      expect(c.readinessProbe?.httpGet, name).toEqual({ path: '/readyz', port });
      expect(c.ports?.map((p) => p.containerPort)).toContain(port);
    }
  });

  it("the controller's Lease is in its pod's namespace, where the leader-election Role grants leases", () => {
    // kovn controller's --lease-namespace defaults to POD_NAMESPACE (its pod's, through the downward API).
    const w = byName('kovn-controller');
    const c = container('kovn-controller', 'kovn-controller');
    expect(flagValue(commandLine(c), 'lease-namespace')).toBeUndefined();
    const env = (c.env ?? []) as readonly { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
    expect(env.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    const grants = grantsOf(manifests, w.namespace, w.pod.serviceAccountName!).filter((g) => g.resource === 'leases');
    expect(grants.map((g) => `${g.verb} in ${g.namespace}`).sort()).toEqual(
      ['create', 'get', 'update'].map((v) => `${v} in ${w.namespace}`),
    );
  });

  it("every $(VAR) of a command line is set: by the container's env, or as a Service of its namespace in deploy/", () => {
    // The kubelet expands $(VAR) from the container's env and the Services' variables of the pod's
    // namespace (<NAME>_SERVICE_HOST/_PORT, the name upper-cased, - as _); an unknown one stays literal.
    const services = manifests.filter((m) => m.object.kind === 'Service');
    const serviceVars = (ns: string) =>
      services
        .filter((s) => (s.object.metadata.namespace ?? 'default') === ns)
        .flatMap((s) => {
          const base = s.object.metadata.name.toUpperCase().replace(/-/g, '_');
          return [`${base}_SERVICE_HOST`, `${base}_SERVICE_PORT`];
        });
    const refs: string[] = [];
    for (const w of all)
      for (const c of allContainers(w.pod)) {
        const known = new Set([...(c.env ?? []).map((e) => e.name), ...serviceVars(w.namespace)]);
        for (const arg of commandLine(c))
          for (const m of arg.matchAll(/\$\((\w+)\)/g)) {
            refs.push(m[1]!);
            expect(known.has(m[1]!), `${w.name}/${c.name}: $(${m[1]}) in ${arg}`).toBe(true);
          }
      }
    expect(new Set(refs)).toEqual(
      new Set([
        'OVN_NB_SERVICE_HOST',
        'OVN_NB_SERVICE_PORT',
        'OVN_SB_SERVICE_HOST',
        'OVN_SB_SERVICE_PORT',
        'NODE_NAME',
        'POD_IP',
      ]),
    );
  });

  it("the ovn-nb and ovn-sb Services lead to the ports ovn-central listens on (the script's 6641, 6642)", () => {
    const central = container('ovn-central', 'ovn-central');
    const script = readFileSync(join(DEPLOY, 'scripts', 'start-central.sh'), 'utf8');
    for (const [svc, port] of [
      ['ovn-nb', 6641],
      ['ovn-sb', 6642],
    ] as const) {
      const s = manifests.find((m) => m.object.kind === 'Service' && m.object.metadata.name === svc)!;
      const spec = s.object.spec as { selector: Record<string, string>; ports: { port: number; targetPort: number }[] };
      expect(spec.ports).toMatchObject([{ port, targetPort: port }]);
      expect(central.ports?.map((p) => p.containerPort)).toContain(port);
      expect(script).toContain(`remotes ${port}`);
      const labels = (
        manifests.find((m) => m.object.kind === 'Deployment' && m.object.metadata.name === 'ovn-central')!.object
          .spec as { template: { metadata: { labels: Record<string, string> } } }
      ).template.metadata.labels;
      expect(labels).toMatchObject(spec.selector);
    }
  });

  it('every pod runs as a ServiceAccount deploy/ defines', () => {
    const accounts = manifests
      .filter((m) => m.object.kind === 'ServiceAccount')
      .map((m) => `${m.object.metadata.namespace}/${m.object.metadata.name}`);
    for (const w of all) expect(accounts, w.name).toContain(`${w.namespace}/${w.pod.serviceAccountName}`);
  });
});

describe('install-cni.sh, run', () => {
  it('installs the plugin and its node, which answer VERSION with the conflist version among theirs', async () => {
    await ensurePluginBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'kovn-install-cni-'));
    try {
      const conflist = join(dir, 'config', '01-kovn.conflist');
      await mkdir(dirname(conflist), { recursive: true });
      await writeFile(conflist, conflistText);
      const env = {
        ...process.env,
        KOVN_DIR: ROOT,
        CNI_BIN_DIR: join(dir, 'bin'),
        CNI_CONF_DIR: join(dir, 'net.d'),
        CNI_CONFLIST: conflist,
      };
      await run('sh', [join(DEPLOY, 'scripts', 'install-cni.sh')], { env });
      expect(await readFile(join(dir, 'net.d', '01-kovn.conflist'), 'utf8')).toBe(conflistText);
      const plugin = join(dir, 'bin', 'kovn-cni');
      expect((await readFile(plugin, 'utf8')).split('\n')[0]).toBe(`#!${join(dir, 'bin', 'kovn-node')}`);
      // As a runtime runs it: the command in the environment, the network's config on stdin.
      const out = execFileSync(plugin, [], { env: { CNI_COMMAND: 'VERSION' }, input: conflistText });
      const answer = JSON.parse(out.toString()) as { supportedVersions: string[] };
      expect(answer.supportedVersions).toContain((JSON.parse(conflistText) as { cniVersion: string }).cniVersion);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
