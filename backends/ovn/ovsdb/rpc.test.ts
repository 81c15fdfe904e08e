import { describe, expect, it } from 'vitest';
import { RpcConnection } from './rpc.ts';
import { ManualTimers } from './timers.ts';
import { FakeStream, flush } from './testing/fake-stream.ts';
import {
  OvsdbConnectionClosedError,
  OvsdbProbeTimeoutError,
  OvsdbProtocolError,
  OvsdbUnknownDatabaseError,
  OvsdbUnknownMethodError,
} from './wire/errors.ts';

function setup(probeIntervalMs = 0) {
  const stream = new FakeStream();
  const timers = new ManualTimers();
  const rpc = new RpcConnection(stream, { probeIntervalMs, timers, name: 'fake' });
  return { stream, timers, rpc };
}

describe('RpcConnection', () => {
  it('matches replies to requests by id, in any order', async () => {
    const { stream, rpc } = setup();
    const a = rpc.request('list_dbs', []);
    const b = rpc.request('get_server_id', []);
    await stream.waitSent(2);
    expect(stream.sent.map((m) => m.method)).toEqual(['list_dbs', 'get_server_id']);
    const [ida, idb] = stream.sent.map((m) => m.id);
    stream.deliver({ id: idb, result: 'sid', error: null });
    stream.deliver({ id: ida, result: ['OVN_Northbound'], error: null });
    await expect(a).resolves.toEqual(['OVN_Northbound']);
    await expect(b).resolves.toBe('sid');
    expect(rpc.inFlight).toBe(0);
  });

  it("answers the server's echo with the same params", async () => {
    const { stream } = setup();
    await flush();
    stream.deliver({ id: 'echo', method: 'echo', params: ['x', 1] });
    await stream.waitSent(1);
    expect(stream.sent[0]).toEqual({ id: 'echo', result: ['x', 1], error: null });
  });

  it('dispatches notifications in arrival order, before later replies resolve', async () => {
    const { stream, rpc } = setup();
    const seen: string[] = [];
    rpc.onNotification((method, params) => seen.push(`${method}:${JSON.stringify(params)}`));
    const p = rpc.request('transact', ['db']).then(() => seen.push('reply'));
    await stream.waitSent(1);
    stream.deliver(
      `{"id":null,"method":"update2","params":["m",{}]}{"id":${JSON.stringify(stream.sent[0]?.id)},"result":[],"error":null}`,
    );
    await p;
    expect(seen).toEqual(['update2:["m",{}]', 'reply']);
  });

  it('gives typed errors for error replies (string and <error> object)', async () => {
    const { stream, rpc } = setup();
    const a = rpc.request('foo', []);
    const b = rpc.request('transact', ['Nope']);
    await stream.waitSent(2);
    stream.deliver({ id: stream.sent[0]?.id, error: 'unknown method' });
    stream.deliver({ id: stream.sent[1]?.id, error: { error: 'unknown database', details: 'no Nope' } });
    await expect(a).rejects.toBeInstanceOf(OvsdbUnknownMethodError);
    await expect(b).rejects.toBeInstanceOf(OvsdbUnknownDatabaseError);
  });

  it('inactivity probe: echo after the idle period, close when unanswered', async () => {
    const { stream, timers, rpc } = setup(1000);
    const closed: Error[] = [];
    rpc.onClose((e) => closed.push(e));
    const pending = rpc.request('transact', ['db']);
    await stream.waitSent(1);
    timers.advance(1000); // idle since arming: probe
    await stream.waitSent(2);
    expect(stream.sent[1]?.method).toBe('echo');
    timers.advance(999);
    expect(rpc.closed).toBe(false);
    timers.advance(1);
    expect(rpc.closed).toBe(true);
    expect(closed[0]).toBeInstanceOf(OvsdbProbeTimeoutError);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OvsdbConnectionClosedError);
    expect((err as OvsdbConnectionClosedError).maybeCommitted).toBe(true);
    expect((err as Error).cause).toBeInstanceOf(OvsdbProbeTimeoutError);
  });

  it('inactivity probe: a live peer (answering the echo) stays connected', async () => {
    const { stream, timers, rpc } = setup(1000);
    for (let round = 0; round < 5; round++) {
      timers.advance(1000);
      await stream.waitSent(round + 1);
      const echo = stream.sent[round];
      expect(echo?.method).toBe('echo');
      stream.deliver({ id: echo?.id, result: [], error: null });
      await flush();
      timers.advance(1000); // the reply was activity: re-arm, no probe
      timers.advance(0);
    }
    expect(rpc.closed).toBe(false);
    expect(timers.pending).toBe(1);
    rpc.close();
    expect(timers.pending).toBe(0);
  });

  it('socket closed mid-reply: pending requests reject with OvsdbConnectionClosedError, no hang', async () => {
    const { stream, rpc } = setup();
    const p = rpc.request('transact', ['db', { op: 'comment', comment: 'x' }]);
    const q = rpc.request('list_dbs', []);
    await stream.waitSent(2);
    stream.deliver(`{"id":${JSON.stringify(stream.sent[0]?.id)},"result":[{"uu`);
    await flush();
    stream.hangUp();
    const [ep, eq] = await Promise.all([p.catch((e: unknown) => e), q.catch((e: unknown) => e)]);
    expect(ep).toBeInstanceOf(OvsdbConnectionClosedError);
    expect((ep as OvsdbConnectionClosedError).maybeCommitted).toBe(true);
    expect(eq).toBeInstanceOf(OvsdbConnectionClosedError);
    expect((eq as OvsdbConnectionClosedError).maybeCommitted).toBe(false);
    await expect(rpc.request('list_dbs', [])).rejects.toBeInstanceOf(OvsdbConnectionClosedError);
  });

  it.each([
    ['invalid JSON', '{"id":1,"result":[}'],
    ['not a JSON-RPC message', '{"hello":1}'],
    ['reply to an unknown id', '{"id":999,"result":[],"error":null}'],
    ['bytes between messages', 'x'],
    ['malformed error member', '{"id":1,"error":42}'],
  ])('malformed reply (%s) → OvsdbProtocolError and the connection closes', async (_what, text) => {
    const { stream, rpc } = setup();
    const p = rpc.request('list_dbs', []);
    await stream.waitSent(1);
    stream.deliver(text);
    await expect(p).rejects.toBeInstanceOf(OvsdbProtocolError);
    expect(rpc.closed).toBe(true);
  });
});
