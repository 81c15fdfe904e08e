/**
 * The front's TLS identity: a self-signed certificate made at start with
 * openssl (an EC P-256 key; subjectAltName 127.0.0.1, ::1 and localhost;
 * CA:TRUE, so the certificate is its own authority in a kubeconfig's
 * `certificate-authority-data`, which kubectl, Python's client and
 * client-node all accept). Made in a private temporary directory that is
 * removed before the function returns.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM texts of a key and its certificate. */
export interface TlsIdentity {
  readonly key: string;
  readonly cert: string;
}

/** openssl failed or is missing. */
export class TlsError extends Error {
  override readonly name = 'TlsError';
  readonly code = 'OpensslFailed';
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
  }
}

/**
 * @example const { key, cert } = await selfSignedCertificate({ days: 365 });
 */
export async function selfSignedCertificate(opts: { readonly days?: number; readonly openssl?: string } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'kovn-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  try {
    await run(opts.openssl ?? 'openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      String(opts.days ?? 365),
      '-subj',
      '/CN=kovn-sim-serve',
      '-addext',
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,digitalSignature,keyCertSign',
      '-addext',
      'extendedKeyUsage=serverAuth',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
    return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') } satisfies TlsIdentity;
  } catch (err) {
    throw new TlsError(`openssl could not make a self-signed certificate: ${(err as Error).message}`, { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
