import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { decideRequireOvn } from './binaries.ts';
import { ControlPlaneError } from './errors.ts';
import { pollUntil } from './exec.ts';
import { freePort, freePorts, parseChosenPort, reportsPortInUse } from './ports.ts';

describe('requireOvn decision', () => {
  it('is true when nothing is missing, whatever KOVN_REQUIRE_OVN says', () => {
    expect(decideRequireOvn({ missing: [], required: true })).toBe(true);
    expect(decideRequireOvn({ missing: [], required: false })).toBe(true);
  });

  it('is false (skip) when binaries are missing and OVN is not required', () => {
    expect(decideRequireOvn({ missing: ['ovn-northd'], required: false })).toBe(false);
  });

  it('throws naming the missing binaries and the context when OVN is required', () => {
    const run = () => decideRequireOvn({ missing: ['ovn-northd', 'ovn-trace'], required: true, ctx: 'difftest' });
    expect(run).toThrow(ControlPlaneError);
    expect(run).toThrow(/^difftest: KOVN_REQUIRE_OVN=1 but OVN\/OVS binaries are missing: ovn-northd, ovn-trace$/);
  });
});

describe('ports', () => {
  it('freePort gives a loopback port that can be bound right away', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
    expect(port).toBeGreaterThan(0);
  });

  it('freePorts gives distinct ports', async () => {
    const ports = await freePorts(5);
    expect(new Set(ports).size).toBe(5);
  });

  it('reads the port ovsdb-server chose for ptcp:0, and bind failures, from its log', () => {
    const log = [
      '2026-11-21T21:45:14.497Z|00002|socket_util|INFO|0:127.0.0.1: listening on port 39011',
      '2026-11-21T21:45:16.414Z|00003|ovsdb_jsonrpc_server|ERR|ptcp:40000:127.0.0.1: listen failed: Address already in use',
      '2026-11-21T21:45:17.000Z|00004|raft|WARN|ptcp:40001:127.0.0.1: listen failed (Address already in use)',
    ].join('\n');
    expect(parseChosenPort(log)).toBe(39011);
    expect(parseChosenPort('|socket_util|INFO|10:127.0.0.1: listening on port 10')).toBeUndefined();
    expect(reportsPortInUse(log, 40000)).toBe(true);
    expect(reportsPortInUse(log, 40001)).toBe(true);
    expect(reportsPortInUse(log, 4000)).toBe(false);
    expect(reportsPortInUse(log, 39011)).toBe(false);
  });
});

describe('pollUntil', () => {
  it('returns the first defined value, treating throws as "not yet"', async () => {
    let n = 0;
    const value = await pollUntil(
      async () => {
        n++;
        if (n < 3) throw new Error('not yet');
        return n;
      },
      { intervalMs: 1, onTimeout: () => new Error('timeout') },
    );
    expect(value).toBe(3);
  });

  it('throws onTimeout with the last error once the bound expires', async () => {
    const err = await pollUntil(
      async () => {
        throw new Error('still down');
      },
      { timeoutMs: 20, intervalMs: 1, onTimeout: (e) => new Error(`gave up: ${(e as Error).message}`) },
    ).catch((e: unknown) => e);
    expect((err as Error).message).toBe('gave up: still down');
  });

  it('stops at once when abort returns an error', async () => {
    let calls = 0;
    const err = await pollUntil(
      async () => {
        calls++;
        return undefined;
      },
      {
        intervalMs: 1,
        abort: () => (calls >= 2 ? new Error('died') : undefined),
        onTimeout: () => new Error('timeout'),
      },
    ).catch((e: unknown) => e);
    expect((err as Error).message).toBe('died');
    expect(calls).toBe(2);
  });
});
