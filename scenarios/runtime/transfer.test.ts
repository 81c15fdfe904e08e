// The transfer measurement itself, before it judges OVS QoS: two namespaces joined by a
// veth pair, once unlimited and once under a kernel token bucket (tc tbf) on the sender's side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { host, requireRuntime, runName } from './support.ts';
import { measureConnects, measureTransfer } from './transfer.ts';

describe.skipIf(!requireRuntime(['netns'], 'transfer measurement'))('bulk TCP transfer between namespaces', () => {
  const a = runName('ktr');
  const b = runName('ktr');
  beforeAll(async () => {
    await host('ip', ['netns', 'add', a]);
    await host('ip', ['netns', 'add', b]);
    await host('ip', ['link', 'add', 'v0', 'netns', a, 'type', 'veth', 'peer', 'name', 'v1', 'netns', b]);
    await host('ip', ['-n', a, 'addr', 'add', '10.250.0.1/24', 'dev', 'v0']);
    await host('ip', ['-n', b, 'addr', 'add', '10.250.0.2/24', 'dev', 'v1']);
    await host('ip', ['-n', a, 'link', 'set', 'v0', 'up']);
    await host('ip', ['-n', b, 'link', 'set', 'v1', 'up']);
  });
  afterAll(async () => {
    await host('ip', ['netns', 'del', a]).catch(() => {});
    await host('ip', ['netns', 'del', b]).catch(() => {});
  });

  it('measures a 20 Mbit/s token bucket within 25 %, and far more without it', async () => {
    const run = () =>
      measureTransfer({ server: { netns: b, port: 5201 }, client: { netns: a, host: '10.250.0.2' }, seconds: 3 });
    const free = await run();
    await host('ip', [
      'netns',
      'exec',
      a,
      'tc',
      'qdisc',
      'add',
      'dev',
      'v0',
      'root',
      'tbf',
      'rate',
      '20mbit',
      'burst',
      '32kbit',
      'latency',
      '400ms',
    ]);
    const limited = await run();
    process.stderr.write(
      `transfer: free ${(free.bitsPerSecond / 1e6).toFixed(1)} Mbit/s, tbf 20mbit ${(limited.bitsPerSecond / 1e6).toFixed(2)} Mbit/s\n`,
    );
    expect(Math.abs(limited.bitsPerSecond - 20e6) / 20e6).toBeLessThan(0.25);
    expect(free.bitsPerSecond).toBeGreaterThan(4 * 20e6);
    expect(limited.measuredSeconds).toBeGreaterThan(1);
  });

  it('a sender that cannot connect fails with a transfer error, not a hang', async () => {
    await expect(
      measureTransfer({ server: { netns: b, port: 5202 }, client: { netns: a, host: '10.250.9.9' }, seconds: 1 }),
    ).rejects.toMatchObject({ code: 'transfer-failed' });
  });

  it('times each connection from connect() to the completed handshake', async () => {
    const ms = await measureConnects({
      server: { netns: b, port: 5203 },
      client: { netns: a, host: '10.250.0.2' },
      count: 5,
    });
    expect(ms).toHaveLength(5);
    for (const m of ms) expect(m).toBeGreaterThan(0);
  });
});
