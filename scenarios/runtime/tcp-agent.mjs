#!/usr/bin/env node
// One side of a TCP measurement, run inside a network namespace
// (`ip netns exec NS node tcp-agent.mjs ...`) by scenarios/runtime/transfer.ts.
// Plain JavaScript so that it starts without a TypeScript loader.
//
//   serve PORT [WARMUP_S]   listen on PORT (all addresses); print "listening"; take one
//                           connection, read it to its end, print one JSON line
//                           {"bytes","seconds","measuredBytes","measuredSeconds","bitsPerSecond"}
//                           and exit. The rate is taken from WARMUP_S (default 1) after the
//                           first byte to the last one: a policer's or shaper's burst
//                           allowance passes at line rate and would inflate a whole-transfer figure.
//   send HOST PORT SECONDS  connect and write as fast as the socket takes data for SECONDS,
//                           then close.
//   listen PORT             accept connections and close each at once; print "listening";
//                           end when stdin ends.
//   connect HOST PORT COUNT connect COUNT times one after another; print one JSON line
//                           {"connectMs":[...]}: each from connect() to the completed handshake.
import { connect, createServer } from 'node:net';

const [mode, ...rest] = process.argv.slice(2);
const now = () => performance.now() / 1000;
const CONNECT_TIMEOUT_MS = 5000;

function serve(port, warmup) {
  const server = createServer((sock) => {
    server.close();
    let bytes = 0;
    let first;
    let last;
    let atWarm;
    let warmBytes = 0;
    sock.on('data', (chunk) => {
      const t = now();
      if (first === undefined) first = t;
      if (atWarm === undefined && t - first >= warmup) {
        atWarm = t;
        warmBytes = bytes;
      }
      bytes += chunk.length;
      last = t;
    });
    sock.on('end', () => {
      const seconds = first === undefined ? 0 : last - first;
      const measuredBytes = atWarm === undefined ? 0 : bytes - warmBytes;
      const measuredSeconds = atWarm === undefined ? 0 : last - atWarm;
      const bitsPerSecond = measuredSeconds > 0 ? (measuredBytes * 8) / measuredSeconds : 0;
      process.stdout.write(`${JSON.stringify({ bytes, seconds, measuredBytes, measuredSeconds, bitsPerSecond })}\n`);
      process.exit(0);
    });
    sock.on('error', (e) => {
      process.stderr.write(`tcp-agent serve: ${e.message}\n`);
      process.exit(1);
    });
  });
  server.listen(port, () => process.stdout.write('listening\n'));
}

function send(host, port, seconds) {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const sock = connect({ host, port });
  sock.on('error', (e) => {
    process.stderr.write(`tcp-agent send to ${host}:${port}: ${e.message}\n`);
    process.exit(1);
  });
  // A handshake that does not complete fails fast instead of retrying SYNs for minutes.
  sock.setTimeout(CONNECT_TIMEOUT_MS, () => {
    process.stderr.write(`tcp-agent send to ${host}:${port}: no handshake within ${CONNECT_TIMEOUT_MS} ms\n`);
    process.exit(1);
  });
  sock.on('connect', () => {
    sock.setTimeout(0);
    const until = now() + seconds;
    const pump = () => {
      while (now() < until) {
        if (!sock.write(chunk)) {
          sock.once('drain', pump);
          return;
        }
      }
      sock.end(() => process.exit(0));
    };
    pump();
  });
}

function listen(port) {
  const server = createServer((sock) => {
    sock.on('error', () => {});
    sock.end();
  });
  server.listen(port, () => process.stdout.write('listening\n'));
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

function connectTimes(host, port, count) {
  const connectMs = [];
  const once = () => {
    if (connectMs.length === count) {
      process.stdout.write(`${JSON.stringify({ connectMs })}\n`);
      process.exit(0);
    }
    const t0 = performance.now();
    const sock = connect({ host, port });
    sock.setTimeout(CONNECT_TIMEOUT_MS, () => {
      process.stderr.write(`tcp-agent connect to ${host}:${port}: no handshake within ${CONNECT_TIMEOUT_MS} ms\n`);
      process.exit(1);
    });
    sock.on('connect', () => {
      connectMs.push(performance.now() - t0);
      sock.destroy();
      once();
    });
    sock.on('error', (e) => {
      process.stderr.write(`tcp-agent connect to ${host}:${port}: ${e.message}\n`);
      process.exit(1);
    });
  };
  once();
}

if (mode === 'serve') serve(Number(rest[0]), rest[1] === undefined ? 1 : Number(rest[1]));
else if (mode === 'send') send(rest[0], Number(rest[1]), Number(rest[2]));
else if (mode === 'listen') listen(Number(rest[0]));
else if (mode === 'connect') connectTimes(rest[0], Number(rest[1]), Number(rest[2]));
else {
  process.stderr.write(
    'usage: tcp-agent.mjs serve PORT [WARMUP_S] | send HOST PORT SECONDS | listen PORT | connect HOST PORT COUNT\n',
  );
  process.exit(2);
}
