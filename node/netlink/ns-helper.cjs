// The in-namespace half of node/netlink: started by the daemon through
// `nsenter --net=...` so that its rtnetlink socket lives in a pod's network
// namespace (Node cannot setns itself; for a host link it runs without
// nsenter, in the daemon's own namespace), it reads one job as JSON on stdin,
// makes the requests, and prints one reply as JSON on stdout
// (helper-protocol.ts has the types). Plain JavaScript requiring only
// Node and the `netlink` package, run by a bare `node`: it starts for every
// ADD and CHECK, so no TypeScript loader and nothing else is loaded.
// CommonJS, not ESM: Node 20's ESM loader importing the package (CommonJS) doubles the start-up.
// Only the rtnetlink module: the package's index also loads genl, nl80211 and wg.
'use strict';

const { createRtNetlink } = require('netlink/dist/rt/rt.js');
const { FlagsNew } = require('netlink/dist/constants.js');
const AF = { 4: 2, 6: 10 };
const RT_TABLE_MAIN = 254;
const CREATE = FlagsNew.CREATE | FlagsNew.EXCL;
const REPLACE = FlagsNew.CREATE | FlagsNew.REPLACE;

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

async function setState(sock, index, name, up) {
  const flags = up ? { up: true } : {};
  await step(`set ${name} ${up ? 'up' : 'down'}`, () => sock.setLink({ index, flags, change: { up: true } }));
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

async function addRoute(sock, index, r, replace) {
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
  await step(`route ${r.label}`, () => sock.newRoute(data, attrs, { flags: replace ? REPLACE : CREATE }));
}

/** The name, MAC and MTU the job asks for, in one request (down first for a rename, which the kernel needs). */
async function setAttributes(sock, index, job) {
  const attrs = {};
  if (job.rename !== undefined) attrs.ifname = job.rename;
  if (job.mac !== undefined) attrs.address = Buffer.from(job.mac);
  if (job.mtu !== undefined) attrs.mtu = job.mtu;
  if (Object.keys(attrs).length === 0) return;
  if (job.rename !== undefined) await setState(sock, index, job.ifName, false);
  await step(`set ${Object.keys(attrs).join(', ')} of ${job.ifName}`, () => sock.setLink({ index }, attrs));
}

/** An address's bytes for a message: dotted for IPv4, colon-separated 16-bit groups for IPv6. */
const addrText = (b) =>
  b.length === 4
    ? [...b].join('.')
    : [...Array(b.length / 2).keys()].map((i) => b.readUInt16BE(i * 2).toString(16)).join(':');

const sameAddress = (m, a) =>
  familyOf(m.data.family) === a.family &&
  m.data.prefixlen === a.prefixlen &&
  Buffer.from(a.bytes).equals(m.attrs.local ?? m.attrs.address ?? Buffer.alloc(0));

/** The global addresses of the listed families that are not listed are removed; the listed ones not there are added. */
async function replaceAddresses(sock, index, wanted) {
  const families = new Set(wanted.map((a) => a.family));
  const have = (await step('dump addresses', () => sock.getAddresses())).filter(
    (m) => m.data.index === index && m.data.scope === 0 && families.has(familyOf(m.data.family)),
  );
  for (const m of have) {
    if (wanted.some((a) => sameAddress(m, a))) continue;
    await step(`remove address ${addrText(m.attrs.local ?? m.attrs.address)}/${m.data.prefixlen}`, () =>
      sock.delAddress(
        { family: m.data.family, prefixlen: m.data.prefixlen, index },
        { local: m.attrs.local, address: m.attrs.address },
      ),
    );
  }
  for (const a of wanted) if (!have.some((m) => sameAddress(m, a))) await addAddress(sock, index, a);
}

// The ethtool generic netlink family (linux/ethtool_netlink.h), for `ethtool -K <if> tx off`.
const CTRL_CMD_GETFAMILY = 3;
const ETHTOOL_MSG_FEATURES_SET = 12;
const ETHTOOL_A_FEATURES_HEADER = 1;
const ETHTOOL_A_FEATURES_WANTED = 3;
const ETHTOOL_A_HEADER_DEV_NAME = 2;
const ETHTOOL_A_BITSET_BITS = 3;
const ETHTOOL_A_BITSET_BITS_BIT = 1;
const ETHTOOL_A_BITSET_BIT_NAME = 2;
const NLA_F_NESTED = 0x8000;
/** The features `ethtool -K tx off` clears; those a device cannot change are left alone by the kernel. */
const TX_CHECKSUM_FEATURES = [
  'tx-checksum-ipv4',
  'tx-checksum-ip-generic',
  'tx-checksum-ipv6',
  'tx-checksum-fcoe-crc',
  'tx-checksum-sctp',
];
const LITTLE = require('node:os').endianness() === 'LE';

/**
 * One netlink attribute in host byte order. The netlink package's AttrStream
 * drops NLA_F_NESTED, which the ethtool family's strict policy requires.
 */
function nla(type, parts) {
  const data = Buffer.concat(parts);
  const head = Buffer.alloc(4);
  if (LITTLE) {
    head.writeUInt16LE(4 + data.length, 0);
    head.writeUInt16LE(type, 2);
  } else {
    head.writeUInt16BE(4 + data.length, 0);
    head.writeUInt16BE(type, 2);
  }
  return Buffer.concat([head, data, Buffer.alloc((4 - (data.length % 4)) % 4)]);
}

const cstr = (s) => Buffer.from(`${s}\0`);

/** ETHTOOL_MSG_FEATURES_SET with the tx checksum bits listed and their value flag absent: off. */
async function txChecksumOff(ifName) {
  // Loaded only here: the generic netlink module is not needed by other jobs.
  const { createGenericNetlink } = require('netlink/dist/genl/genl.js');
  const genl = createGenericNetlink();
  try {
    const [family] = await step('find the ethtool netlink family', () =>
      genl.ctrlRequest(CTRL_CMD_GETFAMILY, { familyName: 'ethtool' }),
    );
    const header = nla(ETHTOOL_A_FEATURES_HEADER | NLA_F_NESTED, [nla(ETHTOOL_A_HEADER_DEV_NAME, [cstr(ifName)])]);
    const bits = TX_CHECKSUM_FEATURES.map((f) =>
      nla(ETHTOOL_A_BITSET_BITS_BIT | NLA_F_NESTED, [nla(ETHTOOL_A_BITSET_BIT_NAME, [cstr(f)])]),
    );
    const wanted = nla(ETHTOOL_A_FEATURES_WANTED | NLA_F_NESTED, [nla(ETHTOOL_A_BITSET_BITS | NLA_F_NESTED, bits)]);
    await step(`set ${ifName} tx checksum offload off`, () =>
      genl.request(family.familyId, ETHTOOL_MSG_FEATURES_SET, 1, [header, wanted]),
    );
  } finally {
    genl.socket.close();
  }
}

async function configure(sock, job) {
  if (job.lo) {
    const lo = await findLink(sock, 'lo');
    if (lo) await setState(sock, lo.data.index, 'lo', true);
  }
  const link = await findLink(sock, job.ifName);
  if (!link) throw new StepError(`find ${job.ifName}`, new Error('Request rejected: ENODEV'));
  const index = link.data.index;
  await setAttributes(sock, index, job);
  await setState(sock, index, job.rename ?? job.ifName, job.up !== false);
  if (job.txChecksumOff) await txChecksumOff(job.rename ?? job.ifName);
  if (job.replaceAddresses) await replaceAddresses(sock, index, job.addresses);
  else for (const a of job.addresses) await addAddress(sock, index, a);
  for (const r of job.routes) await addRoute(sock, index, r, job.replaceRoutes === true);
  return { ok: true, op: 'configure' };
}

/** `ifName` moved to the namespace on fd 4 under `name`; the kernel sets it down and flushes its addresses on the way. */
async function release(sock, job) {
  const link = await findLink(sock, job.ifName);
  if (!link) return { ok: true, op: 'release', found: false };
  await step(`move ${job.ifName} out as ${job.name}`, () =>
    sock.setLink({ index: link.data.index }, { netNsFd: 4, ifname: job.name }),
  );
  return { ok: true, op: 'release', found: true };
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
      if (m.attrs.prefsrc) r.src = [...m.attrs.prefsrc];
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
    else if (job.op === 'release') reply = await release(sock, job);
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
