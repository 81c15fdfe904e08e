// The lab's probe agent: one small process per network namespace (a pod's,
// an outside host's), started inside it (`ip netns exec`), that answers a
// probe with real sockets. Plain JavaScript on purpose: it starts with a bare
// `node`, no TypeScript loader, so a namespace's agent is up in tens of ms.
//
// stdin: one JSON request a line, `{"id", "op", ...}`; stdout: one JSON
// answer a line, `{"id", ...}`. It ends at EOF of stdin (its owner ended,
// however: the kernel closes the pipe), so no agent outlives a lab run.
//
// Ops:
//   listen  {proto: tcp|udp, port}         a listener on every address; what it
//                                          receives is recorded by token
//   connect {proto, dst, port, token, timeoutMs, src?}
//                                          TCP: handshake, send the token, read the
//                                          answer (the listener's name); UDP: send
//                                          the token (twice, a second after), wait
//                                          for the answer
//   seen    {token}                        whether a listener here received it
//   ping    {dst, timeoutMs, src?}         one ICMP echo (iputils `ping`)
//   echoes  {}                             ICMP echo requests (v4 and v6) this namespace's
//                                          kernel received so far (/proc/net/snmp, snmp6)
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const NAME = process.argv[2] ?? 'agent';
const seen = new Map();
const listeners = new Map();

const answer = (id, body) => process.stdout.write(`${JSON.stringify({ id, ...body })}\n`);

function record(token, proto, from) {
  if (token) seen.set(token, { proto, from });
}

function listenTcp(port) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer((sock) => {
      let buf = '';
      sock.setEncoding('utf8');
      sock.on('data', (d) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (nl < 0) return;
        record(buf.slice(0, nl), 'tcp', sock.remoteAddress);
        sock.end(`${NAME}\n`);
      });
      sock.on('error', () => {});
    });
    srv.once('error', reject);
    srv.listen({ port, host: '::', ipv6Only: false }, () => resolve(srv));
  });
}

function listenUdp(port) {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket({ type: 'udp6', ipv6Only: false });
    sock.on('message', (msg, rinfo) => {
      const token = msg.toString('utf8').trim();
      record(token, 'udp', rinfo.address);
      sock.send(`${NAME}\n`, rinfo.port, rinfo.address);
    });
    sock.once('error', reject);
    sock.bind({ port, address: '::' }, () => resolve(sock));
  });
}

async function listen(req) {
  const key = `${req.proto}/${req.port}`;
  if (!listeners.has(key)) listeners.set(key, await (req.proto === 'tcp' ? listenTcp : listenUdp)(req.port));
  return { ok: true };
}

function connectTcp(req) {
  return new Promise((resolve) => {
    let connected = false;
    let buf = '';
    const sock = net.connect({ host: req.dst, port: req.port, ...(req.src ? { localAddress: req.src } : {}) });
    const done = (r) => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ connected, ...r });
    };
    const timer = setTimeout(() => done({ error: connected ? 'no answer' : 'timeout' }), req.timeoutMs);
    sock.setEncoding('utf8');
    sock.on('connect', () => {
      connected = true;
      sock.write(`${req.token}\n`);
    });
    sock.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) done({ reply: buf.slice(0, nl) });
    });
    sock.on('error', (e) => done({ error: e.code ?? String(e) }));
    sock.on('close', () => done({ error: 'closed' }));
  });
}

function connectUdp(req) {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(req.dst) ? 'udp6' : 'udp4');
    const done = (r) => {
      clearTimeout(timer);
      clearTimeout(again);
      sock.close();
      resolve(r);
    };
    const send = () => sock.send(`${req.token}\n`, req.port, req.dst, (e) => e && done({ error: e.code ?? String(e) }));
    const timer = setTimeout(() => done({ error: 'no answer' }), req.timeoutMs);
    // A second datagram if no answer came: a reply lost to a first ARP exchange is not the probe's verdict.
    const again = setTimeout(send, Math.min(1000, req.timeoutMs / 2));
    sock.on('message', (m) => done({ reply: m.toString('utf8').trim() }));
    sock.on('error', (e) => done({ error: e.code ?? String(e) }));
    if (req.src) sock.bind({ address: req.src }, send);
    else send();
  });
}

function ping(req) {
  return new Promise((resolve) => {
    const secs = Math.max(1, Math.ceil(req.timeoutMs / 1000));
    const args = ['-n', '-c', '1', '-W', String(secs), ...(req.src ? ['-I', req.src] : []), req.dst];
    const p = spawn('ping', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', (e) => resolve({ replied: false, error: e.code ?? String(e) }));
    p.on('close', (code) =>
      resolve({ replied: code === 0, ...(code === 0 ? {} : { error: out.trim().split('\n').pop() }) }),
    );
  });
}

// Echo requests received, IPv4 (/proc/net/snmp, Icmp: InEchos) and IPv6 (/proc/net/snmp6, Icmp6InEchos).
function echoes() {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('Icmp:'));
  const head = lines[0]?.split(/\s+/) ?? [];
  const vals = lines[1]?.split(/\s+/) ?? [];
  const v4 = Number(vals[head.indexOf('InEchos')] ?? 0);
  let v6 = 0;
  try {
    const m = /^Icmp6InEchos\s+(\d+)/m.exec(readFileSync('/proc/net/snmp6', 'utf8'));
    v6 = Number(m?.[1] ?? 0);
  } catch {
    // no IPv6 in this kernel: nothing counted
  }
  return { echoes: v4 + v6 };
}

async function handle(req) {
  switch (req.op) {
    case 'listen':
      return listen(req);
    case 'connect':
      return req.proto === 'tcp' ? connectTcp(req) : connectUdp(req);
    case 'seen':
      return { seen: seen.get(req.token) ?? null };
    case 'ping':
      return ping(req);
    case 'echoes':
      return echoes();
    default:
      return { error: `unknown op ${req.op}` };
  }
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    let req;
    try {
      req = JSON.parse(line);
    } catch {
      continue;
    }
    handle(req).then(
      (r) => answer(req.id, r),
      (e) => answer(req.id, { error: e?.code ?? String(e) }),
    );
  }
});
process.stdin.on('end', () => process.exit(0));
answer(0, { ready: NAME });
