/**
 * ssl: remotes against a real ovsdb-server with a throwaway PKI (openssl):
 * client certificate, key and CA given as options.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { makeTempDir, requireOvn, runTool, NB_SCHEMA } from '../control-plane/index.ts';
import { DaemonProcess } from '../control-plane/daemon.ts';
import { OvsdbClient } from './client.ts';
import { connectRemote, parseRemote, readTlsFiles, type TlsCredentials } from './transport.ts';
import { OvsdbConnectionClosedError, OvsdbRemoteError } from './wire/errors.ts';
import { removeTempDir } from './testing/nb-helpers.ts';

const run = promisify(execFile);

async function openssl(dir: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

/** A CA and two certificates it signed (server, client), plus an unrelated CA. */
async function makePki(dir: string): Promise<void> {
  for (const ca of ['ca', 'other-ca']) {
    await openssl(dir, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-subj',
      `/CN=kovn-test-${ca}`,
      '-days',
      '2',
    ]);
  }
  for (const who of ['server', 'client']) {
    await openssl(dir, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${who}.key`,
      '-out',
      `${who}.csr`,
      '-subj',
      `/CN=kovn-test-${who}`,
    ]);
    await openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${who}.crt`,
      '-days',
      '2',
    ]);
  }
}

function opensslPresent(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const haveOpenssl = opensslPresent();
// The PKI needs the openssl command; where OVN is required (CI), its absence fails rather than skips.
if (!haveOpenssl && process.env.KOVN_REQUIRE_OVN === '1') {
  describe('ssl: prerequisites', () => {
    it('openssl is on PATH', () => {
      expect.fail('openssl is missing: the ssl: remote tests cannot make their PKI (KOVN_REQUIRE_OVN=1)');
    });
  });
}

describe.skipIf(!requireOvn('ovsdb ssl') || !haveOpenssl)('ssl: remotes against ovsdb-server', () => {
  let dir: string | undefined;
  let daemon: DaemonProcess;
  let remote: string;
  let creds: TlsCredentials;

  beforeAll(async () => {
    dir = await makeTempDir('ssl');
    await makePki(dir);
    await runTool('ovsdb-tool', ['create', `${dir}/nb.db`, NB_SCHEMA]);
    daemon = new DaemonProcess({ dir, name: 'nb', binary: 'ovsdb-server', args: [] });
    await daemon.start([
      `--private-key=${dir}/server.key`,
      `--certificate=${dir}/server.crt`,
      `--ca-cert=${dir}/ca.crt`,
      '--remote=pssl:0:127.0.0.1',
      `${dir}/nb.db`,
    ]);
    const port = await waitForPort(daemon.logFile);
    remote = `ssl:127.0.0.1:${port}`;
    creds = readTlsFiles({
      privateKey: `${dir}/client.key`,
      certificate: `${dir}/client.crt`,
      caCert: `${dir}/ca.crt`,
    });
  });
  afterAll(async () => {
    await daemon?.stop();
    await removeTempDir(dir);
  });

  it('connects with a client certificate and speaks OVSDB', async () => {
    const client = await OvsdbClient.connect(remote, { tls: creds });
    try {
      expect(await client.listDbs()).toContain('OVN_Northbound');
      const [r] = await client.transact('OVN_Northbound', [
        { op: 'insert', table: 'Logical_Switch', row: { name: 'over-ssl' } },
      ]);
      expect(r.uuid).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      client.close();
    }
  });

  it('refuses a server whose certificate does not chain to our CA', async () => {
    const wrongCa = { ...creds, ca: readFileSync(`${dir}/other-ca.crt`) };
    await expect(connectRemote(parseRemote(remote), { tls: wrongCa })).rejects.toBeInstanceOf(
      OvsdbConnectionClosedError,
    );
  });

  it('needs credentials for ssl:', async () => {
    await expect(connectRemote(parseRemote(remote))).rejects.toBeInstanceOf(OvsdbRemoteError);
  });
});

/** ovsdb-server logs "...|0:127.0.0.1: listening on port N" once pssl:0 is bound. */
async function waitForPort(logFile: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    let text = '';
    try {
      text = readFileSync(logFile, 'utf8');
    } catch {
      // not written yet
    }
    const m = /0:127\.0\.0\.1: listening on port (\d+)/.exec(text);
    if (m?.[1] !== undefined) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no "listening on port" line in ${logFile}`);
}
