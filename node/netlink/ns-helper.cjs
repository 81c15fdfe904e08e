// The in-namespace half of node/netlink: started by the daemon through
// `nsenter --net=...` so that its rtnetlink socket lives in a pod's network
// namespace (Node cannot setns itself), it reads one job as JSON on stdin,
// makes the requests, and prints one reply as JSON on stdout
// (helper-protocol.ts has the types). Plain JavaScript requiring only
// Node and the `netlink` package, run by a bare `node`: it starts for every
// ADD and CHECK, so no TypeScript loader and nothing else is loaded.
// CommonJS, not ESM: Node 20's ESM loader importing the package (CommonJS) doubles the start-up.
// Only the rtnetlink module: the package's index also loads genl, nl80211 and wg.
'use strict';

const { createRtNetlink } = require('netlink/dist/rt/rt.js');
const { FlagsNew } = require('netlink/dist/constants.js');

/** ethtool(8), loaded only when a job asks for it (most helpers start without it). */
function run(cmd, args) {
  const { execFile } = require('node:child_process');
  return new Promise((resolve, reject) =>
    execFile(cmd, args, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}
const AF = { 4: 2, 6: 10 };
const RT_TABLE_MAIN = 254;
const CREATE = FlagsNew.CREATE | FlagsNew.EXCL;

/** A request refused by the kernel, with the step it was. */
class StepError extends Error {
  constructor(step, cause) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.step = step;
    // The netlink package rejects with "Request rejected: EEXIST".
    const m = /Request rejected: (\w+)/.exec(this.message);
    this.errno = m ? m[1] : undefined;
  }
}

async function step(name, fn) {
  try {
    return await fn();
  } catch (e) {
    throw new StepError(name, e);
  }
}

/** The link of that name, or undefined (ENODEV). */
async function findLink(sock, ifName) {
  try {
    const [link] = await sock.getLink({}, { ifname: ifName });
    return link;
  } catch (e) {
    if (/ENODEV/.test(String(e?.message))) return undefined;
    throw new StepError(`find ${ifName}`, e);
  }
}

async function setUp(sock, index, name) {
  await step(`set ${name} up`, () => sock.setLink({ index, flags: { up: true }, change: { up: true } }));
}

async function addAddress(sock, index, a) {
  const bytes = Buffer.from(a.bytes);
  // IPv6 without DAD: the address is unique by IPAM, and DAD would leave it tentative (unusable) for a second.
  const flags = a.family === 6 ? { nodad: true } : {};
  await step(`address ${a.label}`, () =>
    sock.newAddress(
      { family: AF[a.family], prefixlen: a.prefixlen, flags, scope: 0, index },
      { local: bytes, address: bytes },
      { flags: CREATE },
    ),
  );
}

async function addRoute(sock, index, r) {
  const attrs = { oif: index };
  if (r.dstLen > 0) attrs.dst = Buffer.from(r.dst);
  if (r.gw !== undefined) attrs.gateway = Buffer.from(r.gw);
  if (r.src !== undefined) attrs.prefsrc = Buffer.from(r.src);
  // An IPv4 route without a gateway is on-link (scope link), as `ip route add` makes it.
  const scope = r.family === 4 && r.gw === undefined ? 'LINK' : 'UNIVERSE';
  const data = {
    family: AF[r.family],
    dstLen: r.dstLen,
    table: RT_TABLE_MAIN,
    protocol: 'BOOT',
    scope,
    type: 'UNICAST',
  };
  await step(`route ${r.label}`, () => sock.newRoute(data, attrs, { flags: CREATE }));
}

async function configure(sock, job) {
  const lo = await findLink(sock, 'lo');
  if (lo) await setUp(sock, lo.data.index, 'lo');
  const link = await findLink(sock, job.ifName);
  if (!link) throw new StepError(`find ${job.ifName}`, new Error('Request rejected: ENODEV'));
  const index = link.data.index;
  await setUp(sock, index, job.ifName);
  // The userspace datapath forwards a veth's partial checksums as they are: TCP needs them computed here.
  if (job.txChecksumOff)
    await step(`${job.ifName} tx checksum off`, () => run('ethtool', ['-K', job.ifName, 'tx', 'off']));
  for (const a of job.addresses) await addAddress(sock, index, a);
  for (const r of job.routes) await addRoute(sock, index, r);
  return { ok: true, op: 'configure' };
}

const familyOf = (af) => (af === AF[4] ? 4 : af === AF[6] ? 6 : undefined);
const isMain = (m) => (m.attrs.table ?? m.data.table) === RT_TABLE_MAIN;
const isKernel = (m) => m.data.protocol === 'KERNEL' || m.data.protocol === 2;
const isUnicast = (m) => m.data.type === 'UNICAST' || m.data.type === 1;

/** The link, its global addresses, and the main-table unicast routes through it that the kernel did not add itself. */
async function inspect(sock, job) {
  const link = await findLink(sock, job.ifName);
  if (!link) return { ok: true, op: 'inspect', state: null };
  const index = link.data.index;
  const addrs = await step('dump addresses', () => sock.getAddresses());
  const routes = await step('dump routes', () => sock.getRoutes());
  const addresses = addrs
    .filter((m) => m.data.index === index && m.data.scope === 0 && familyOf(m.data.family))
    .map((m) => ({
      family: familyOf(m.data.family),
      bytes: [...(m.attrs.local ?? m.attrs.address)],
      prefixlen: m.data.prefixlen,
    }));
  const own = routes.filter((m) => m.attrs.oif === index && isMain(m) && !isKernel(m) && isUnicast(m));
  const wireRoutes = own
    .filter((m) => familyOf(m.data.family))
    .map((m) => {
      const r = { family: familyOf(m.data.family), dstLen: m.data.dstLen };
      if (m.attrs.dst) r.dst = [...m.attrs.dst];
      if (m.attrs.gateway) r.gw = [...m.attrs.gateway];
      return r;
    });
  const state = {
    ifName: job.ifName,
    mac: [...(link.attrs.address ?? [])],
    mtu: link.attrs.mtu ?? 0,
    up: link.data.flags?.up === true,
    addresses,
    routes: wireRoutes,
  };
  return { ok: true, op: 'inspect', state };
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  let reply;
  const sock = createRtNetlink();
  try {
    const job = JSON.parse(await readStdin());
    if (job.op === 'configure') reply = await configure(sock, job);
    else if (job.op === 'inspect') reply = await inspect(sock, job);
    else reply = { ok: false, step: 'job', message: `unknown op ${JSON.stringify(job.op)}` };
  } catch (e) {
    reply =
      e instanceof StepError
        ? { ok: false, step: e.step, errno: e.errno, message: e.message }
        : { ok: false, step: 'job', message: String(e?.message ?? e) };
  } finally {
    sock.socket.close();
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
  process.exitCode = reply.ok ? 0 : 1;
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ ok: false, step: 'helper', message: String(e?.stack ?? e) })}\n`);
  process.exitCode = 1;
});
