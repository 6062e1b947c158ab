import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectVia, proxyFor } from '../../../src/config-apply/proxy/proxy-route.js';
import { parseProxySettings } from '../../../src/config-apply/proxy/proxy-settings.js';
import { postJson } from '../../../src/identity/post-json.js';
import { fileSlotTarget } from '../../../src/os/boot/slot-target.js';
import { downloadImage } from '../../../src/os/download/image-download.js';
import { createTestCa, issueServerCertificate } from '../../../../test/integration/helpers/test-certificates.js';
import { useTempDirs } from '../../helpers/temp-dir.js';
import { signingKey, testImage } from '../../os/helpers/os-images.js';
import { ConnectProxy } from './connect-proxy.js';

const tempDir = useTempDirs();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function proxyVia(): Promise<{ proxy: ConnectProxy; connect: ReturnType<typeof connectVia> }> {
  const proxy = await ConnectProxy.start();
  closers.push(() => proxy.close());
  const parsed = parseProxySettings({ httpProxy: proxy.url, httpsProxy: proxy.url });
  if (!parsed.ok) throw new Error(parsed.error);
  const settings = parsed.settings;
  return { proxy, connect: connectVia((target) => proxyFor(settings, target)) };
}

describe("the agent's other requests to the control plane go through the proxy too", () => {
  it('downloads an OS image over https through the tunnel, trusting the --ca-file CA', async () => {
    const dir = await tempDir();
    const ca = createTestCa(dir);
    const certificate = issueServerCertificate(ca, dir, 'artifacts');
    const { content, image } = testImage('1.1.0', 256 * 1024, signingKey());
    const server = createHttpsServer(
      { cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile) },
      (_req, res) => {
        res.writeHead(200, { 'content-length': content.length, etag: `"${image.sha256}"` });
        res.end(content);
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(image.url, `https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await mkdir(join(dir, 'slots'));
    const slotPath = join(dir, 'slots', 'B.img');
    const { proxy, connect } = await proxyVia();

    const digest = await downloadImage({
      url,
      authorization: async () => 'Bearer c',
      image,
      resumeFrom: 0,
      target: fileSlotTarget('B', slotPath, 1024 * 1024),
      ca: ca.pem,
      connect,
    });
    expect(digest.toString('hex')).toBe(image.sha256);
    expect((await readFile(slotPath)).equals(content)).toBe(true);
    expect(proxy.requests).toEqual([url.host]);
  });

  it("posts the key-pair device's challenge request through the tunnel", async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge: 'c-1', path: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/d:challenge`);
    const { proxy, connect } = await proxyVia();

    expect(await postJson(url, {}, { connect })).toEqual({ challenge: 'c-1', path: '/v1/d:challenge' });
    expect(proxy.requests).toEqual([url.host]);
  });
});
