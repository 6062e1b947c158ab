import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A private CA and a server certificate it signed for 127.0.0.1, as files in one benchmark run's folder. */
export interface ThrowawayTls {
  /** the CA certificate's PEM, for the clients to trust */
  caPem: string;
  /** the server's certificate and key, for `outpost-server --tls-cert/--tls-key` */
  certFile: string;
  keyFile: string;
}

/**
 * ECDSA P-256 keys, certbot's default key type, so the server's handshakes cost what a typical production
 * certificate's do (an RSA-2048 key signs several times slower).
 */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes the CA and the server certificate in `dir` with the openssl command line. */
export function createThrowawayTls(dir: string): ThrowawayTls {
  const openssl = (args: readonly string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const caCert = join(dir, 'bench-ca.crt');
  const caKey = join(dir, 'bench-ca.key');
  openssl([
    'req',
    '-x509',
    ...NEW_KEY,
    '-days',
    '1',
    '-subj',
    '/CN=Outpost bench CA',
    '-keyout',
    caKey,
    '-out',
    caCert,
  ]);

  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  const csrFile = join(dir, 'server.csr');
  const extFile = join(dir, 'server.ext');
  writeFileSync(extFile, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(['req', '-new', ...NEW_KEY, '-subj', '/CN=127.0.0.1', '-keyout', keyFile, '-out', csrFile]);
  openssl([
    'x509',
    '-req',
    '-in',
    csrFile,
    ...['-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-days', '1', '-extfile', extFile],
    '-out',
    certFile,
  ]);
  return { caPem: readFileSync(caCert, 'utf8'), certFile, keyFile };
}
