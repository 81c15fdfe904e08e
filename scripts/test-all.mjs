#!/usr/bin/env node
// The whole test suite, as README and .ci/run give it:
//   1. installs Debian's OVN/OVS (and iproute2, openssl, chromium for the HTML
//      report's browser test, and for the node agent's real-runtime tests podman
//      with runc and a static busybox for the image) when a binary is missing,
//   2. type-checks (tsc --noEmit) and checks format and lint (biome check),
//   3. bundles the node/ programs that run as compiled JavaScript (the CNI
//      plugin, dist/cni/kovn: node/bundle/entries.ts lists them), so tests
//      that spawn them find them fresh,
//   4. runs every vitest test with KOVN_REQUIRE_OVN=1, so a test that needs
//      OVN fails instead of skipping.
// Options: --seed N (fast-check seed, default fixed), --runs N (cases per
// property), anything else is passed to vitest (e.g. a path filter).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const NEEDED = [
  'ovsdb-server',
  'ovsdb-tool',
  'ovsdb-client',
  'ovn-northd',
  'ovn-nbctl',
  'ovn-sbctl',
  'ovn-trace',
  'ovn-appctl',
  'ovs-vswitchd',
  'ovn-controller',
  'ip',
  'tc',
  'ethtool',
  // The lab's ICMP probes (scenarios/lab).
  'ping',
  'openssl',
  'chromium',
  'podman',
  'runc',
];
const PACKAGES = [
  'ovn-central',
  'ovn-host',
  'openvswitch-switch',
  'iproute2',
  'ethtool',
  'iputils-ping',
  'openssl',
  'chromium',
  'podman',
  'runc',
  'busybox-static',
  // The API front's real clients (kube/apiserver): Python's kubernetes client for /usr/bin/python3.
  'python3-kubernetes',
];

// Debian's kubectl (kubernetes-client 1.20), the real client `kovn sim serve` is tested with. It is
// unpacked beside, not installed: its /usr/bin/kubectl would clash with another kubectl package
// (a machine may carry Google Cloud SDK's). Tests find it through KOVN_KUBECTL
// (kube/apiserver/testing/clients.ts).
const KUBECTL_DIR = '/var/cache/kovn/kubernetes-client';
const KUBECTL = `${KUBECTL_DIR}/usr/bin/kubectl`;

function onPath(bin) {
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

// The podman test's image is /bin/busybox copied into an empty rootfs: it must be the static
// build (busybox-static); Debian's plain busybox package is dynamically linked.
function staticBusybox() {
  try {
    const b = readFileSync('/bin/busybox');
    if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2) return false;
    const phoff = Number(b.readBigUInt64LE(32));
    const size = b.readUInt16LE(54);
    for (let i = 0; i < b.readUInt16LE(56); i++) if (b.readUInt32LE(phoff + i * size) === 3) return false; // PT_INTERP
    return true;
  } catch {
    return false;
  }
}

function run(cmd, args, env = process.env, cwd = undefined) {
  process.stderr.write(`+ ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env, cwd });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function pythonKubernetes() {
  return spawnSync('/usr/bin/python3', ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0;
}

function ensureKubectl() {
  if (exists(KUBECTL)) return;
  const tmp = mkdtempSync(join(tmpdir(), 'kovn-kubectl-'));
  try {
    const download = () => run('apt-get', ['download', 'kubernetes-client'], process.env, tmp);
    if (download() !== 0 && (run('apt-get', ['update']) !== 0 || download() !== 0)) {
      process.stderr.write("apt-get download kubernetes-client failed; the API front's kubectl tests will fail\n");
      return;
    }
    const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'));
    mkdirSync(KUBECTL_DIR, { recursive: true });
    if (deb !== undefined) run('dpkg-deb', ['-x', join(tmp, deb), KUBECTL_DIR]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function exists(p) {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function ensureOvn() {
  const missing = NEEDED.filter((b) => !onPath(b));
  if (!staticBusybox()) missing.push('a static /bin/busybox');
  if (!pythonKubernetes()) missing.push("python3's kubernetes module");
  if (missing.length === 0) return;
  process.stderr.write(`missing ${missing.join(', ')}: installing ${PACKAGES.join(' ')} from Debian\n`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args], env) : run('apt-get', args, env));
  if (apt(['update']) !== 0 || apt(['install', '-y', '--no-install-recommends', ...PACKAGES]) !== 0) {
    process.stderr.write('apt-get failed; tests that need OVN or podman will fail (KOVN_REQUIRE_OVN=1)\n');
  }
  // Debian's postinst may start the system daemons; tests start their own in temp dirs.
}

const args = process.argv.slice(2);
const env = {
  ...process.env,
  KOVN_REQUIRE_OVN: '1',
  KOVN_KUBECTL: process.env.KOVN_KUBECTL ?? KUBECTL,
  PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
};
const passthrough = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--seed') env.FC_SEED = args[++i];
  else if (args[i] === '--runs') env.FC_NUM_RUNS = args[++i];
  else passthrough.push(args[i]);
}

ensureOvn();
ensureKubectl();
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
let status = run(npx, ['tsc', '--noEmit', '-p', '.'], env);
if (status === 0) status = run(npx, ['biome', 'check', '.'], env);
if (status === 0) status = run(npx, ['tsx', 'node/bundle/main.ts'], env);
if (status === 0) status = run(npx, ['vitest', 'run', ...passthrough], env);
process.exit(status);
