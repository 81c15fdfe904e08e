import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDaemon, DaemonCallError, parseResponse } from './client.ts';
import type { DaemonRequest } from './protocol.ts';
import { startFakeDaemon } from './testing.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kovn-cni-client-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const REQ: DaemonRequest = {
  command: 'STATUS',
  cniVersion: '1.1.0',
  network: 'kovn',
  containerId: '',
  netns: '',
  ifName: '',
  podName: '',
  podNamespace: '',
  provider: 'ovn',
};

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(DaemonCallError);
    return (e as DaemonCallError).code;
  }
}

describe('callDaemon', () => {
  it('sends one JSON line and reads one back', async () => {
    const d = await startFakeDaemon(join(dir, 'a.sock'), () => ({ ok: true }));
    expect(await callDaemon(d.socketPath, REQ)).toEqual({ ok: true });
    expect(d.requests).toEqual([REQ]);
    await d.close();
  });

  it('understands an answer ended by the connection instead of a newline', async () => {
    const d = await startFakeDaemon(join(dir, 'b.sock'), () => ({ raw: '{"ok":true}' }));
    expect(await callDaemon(d.socketPath, REQ)).toEqual({ ok: true });
    await d.close();
  });

  it('no socket, or a file that is no listening socket: UNREACHABLE', async () => {
    expect(await codeOf(callDaemon(join(dir, 'missing.sock'), REQ))).toBe('UNREACHABLE');
    await writeFile(join(dir, 'stale.sock'), '');
    expect(await codeOf(callDaemon(join(dir, 'stale.sock'), REQ))).toBe('UNREACHABLE');
  });

  it('closed without an answer: CLOSED; a line that is no response: BAD_RESPONSE', async () => {
    const c = await startFakeDaemon(join(dir, 'c.sock'), () => ({ close: true }));
    expect(await codeOf(callDaemon(c.socketPath, REQ))).toBe('CLOSED');
    await c.close();
    const g = await startFakeDaemon(join(dir, 'g.sock'), () => ({ raw: '{"ok":false,"error":{"code":"x"}}\n' }));
    expect(await codeOf(callDaemon(g.socketPath, REQ))).toBe('BAD_RESPONSE');
    await g.close();
  });

  it("the caller's signal ends a wait the daemon never answers: ABORTED", async () => {
    const ac = new AbortController();
    let answered: () => void = () => undefined;
    const d = await startFakeDaemon(join(dir, 'h.sock'), () => {
      ac.abort();
      return new Promise((resolve) => {
        answered = () => resolve({ ok: true });
      });
    });
    expect(await codeOf(callDaemon(d.socketPath, REQ, { signal: ac.signal }))).toBe('ABORTED');
    answered();
    await d.close();
  });

  it('parseResponse takes only the shapes of protocol.ts', () => {
    expect(parseResponse('{"ok":true,"result":{"cniVersion":"1.1.0"}}')).toEqual({
      ok: true,
      result: { cniVersion: '1.1.0' },
    });
    expect(parseResponse('{"ok":false,"error":{"code":11,"msg":"later"}}')).toEqual({
      ok: false,
      error: { code: 11, msg: 'later' },
    });
    for (const bad of ['', 'null', '[]', '{"ok":1}', '{"ok":true,"result":[]}', '{"ok":false,"error":{"msg":"x"}}'])
      expect(parseResponse(bad), bad).toBeUndefined();
  });
});
