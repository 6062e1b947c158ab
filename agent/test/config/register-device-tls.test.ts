import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDevice } from '../../src/config/register-device.js';
import { createTestCa, issueServerCertificate } from '../../../test/integration/helpers/test-certificates.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('registering over https (--ca-file)', () => {
  it('reaches a server whose certificate the given CA signed, and says why it cannot without it', async () => {
    const dir = await tempDir();
    const ca = createTestCa(dir);
    const certificate = issueServerCertificate(ca, dir, 'server');
    const seen: string[] = [];
    const server = createServer(
      { cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile) },
      (req, res) => {
        seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 403, status: 'PERMISSION_DENIED', message: 'token used up' } }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const call = {
      server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      provisioningToken: 'opt_token',
      project: 'p',
      region: 'r',
      deviceId: 'd-1',
    };

    await expect(registerDevice(call)).rejects.toMatchObject({
      status: 'UNAVAILABLE',
      message: expect.stringMatching(
        /^cannot reach https:\/\/127\.0\.0\.1:\d+: unable to verify the first certificate$/,
      ),
    });
    expect(seen).toEqual([]);

    await expect(registerDevice({ ...call, ca: ca.pem })).rejects.toMatchObject({
      status: 'PERMISSION_DENIED',
      message: 'token used up',
    });
    expect(seen).toEqual(['POST /v1/projects/p/regions/r/devices:register Bearer opt_token']);
  });
});
