import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A private CA made with the openssl command line, and server certificates it signs for 127.0.0.1 and localhost. */
export interface TestCa {
  certFile: string;
  keyFile: string;
  /** the CA certificate's PEM */
  pem: string;
}

export interface ServerCertificate {
  certFile: string;
  keyFile: string;
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

const openssl = (args: readonly string[], cwd: string): void => {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
};

/** Creates a CA (`<name>.crt`, `<name>.key`) in `dir`. */
export function createTestCa(dir: string, name = 'ca'): TestCa {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  openssl(
    [
      'req',
      '-x509',
      ...NEW_KEY,
      '-days',
      '2',
      '-subj',
      `/CN=Outpost test ${name}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    dir,
  );
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}

/** A server certificate for 127.0.0.1, ::1 and localhost signed by `ca`, written as `<name>.crt` and `<name>.key`. */
export function issueServerCertificate(ca: TestCa, dir: string, name: string): ServerCertificate {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const csrFile = join(dir, `${name}.csr`);
  const extFile = join(dir, `${name}.ext`);
  writeFileSync(extFile, 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(['req', '-new', ...NEW_KEY, '-subj', `/CN=${name}`, '-keyout', keyFile, '-out', csrFile], dir);
  const signed = ['-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '2', '-extfile', extFile];
  openssl(['x509', '-req', '-in', csrFile, ...signed, '-out', certFile], dir);
  return { certFile, keyFile };
}
