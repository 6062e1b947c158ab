import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListener, type Listener } from '../../src/server/tls-listener.js';
import {
  createTestCa,
  issueServerCertificate,
  type ServerCertificate,
  type TestCa,
} from '../../../test/integration/helpers/test-certificates.js';

let dir: string;
let ca: TestCa;
let first: ServerCertificate;
let renewed: ServerCertificate;
let other: ServerCertificate;
/** the files the server is configured with; the tests copy certificates over them */
let live: ServerCertificate;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-tls-'));
  ca = createTestCa(dir);
  first = issueServerCertificate(ca, dir, 'first');
  renewed = issueServerCertificate(ca, dir, 'renewed');
  other = issueServerCertificate(ca, dir, 'other');
  live = { certFile: join(dir, 'live.crt'), keyFile: join(dir, 'live.key') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function install(certificate: ServerCertificate): void {
  copyFileSync(certificate.keyFile, live.keyFile);
  copyFileSync(certificate.certFile, live.certFile);
}

async function listen(): Promise<{ listener: Listener; port: number; stop(): Promise<void> }> {
  const listener = createListener(live, {}, (_req, res) => res.end('ok'), pino({ level: 'silent' }), {
    pollIntervalMs: 50,
    settleMs: 50,
  });
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  const { port } = listener.server.address() as AddressInfo;
  return {
    listener,
    port,
    stop: async () => {
      listener.close();
      listener.server.closeAllConnections();
      await new Promise((resolve) => listener.server.close(resolve));
    },
  };
}

function handshake(port: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: ca.pem }, () => resolve(socket));
    socket.once('error', reject);
  });
}

async function servedCommonName(port: number): Promise<string> {
  const socket = await handshake(port);
  const name = socket.getPeerCertificate().subject.CN;
  socket.destroy();
  return String(name);
}

/** One keep-alive HTTP request on an open TLS connection. */
function askOn(socket: TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const onData = (data: Buffer): void => {
      answer += data.toString();
      if (answer.endsWith('ok')) {
        socket.off('data', onData);
        resolve(answer);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
  });
}

describe('TLS listener', () => {
  it('serves HTTPS and swaps a renewed certificate without dropping open connections', async () => {
    install(first);
    const { port, stop } = await listen();
    try {
      const open = await handshake(port);
      expect(open.getPeerCertificate().subject.CN).toBe('first');
      expect(await askOn(open)).toMatch(/^HTTP\/1\.1 200/);

      install(renewed);
      await expect.poll(() => servedCommonName(port), { timeout: 20_000 }).toBe('renewed');
      // the connection opened before the swap is still up and served
      expect(open.destroyed).toBe(false);
      expect(await askOn(open)).toMatch(/^HTTP\/1\.1 200/);
      open.destroy();
    } finally {
      await stop();
    }
  });

  it('reloads on request (SIGHUP) and keeps the current certificate when the files are unusable', async () => {
    install(first);
    const { listener, port, stop } = await listen();
    try {
      listener.close(); // no file watching: only the explicit reload may change anything
      copyFileSync(other.certFile, live.certFile); // a certificate whose key is not there yet
      expect(listener.reloadCertificate?.()).toBe(false);
      expect(await servedCommonName(port)).toBe('first');

      copyFileSync(other.keyFile, live.keyFile);
      expect(listener.reloadCertificate?.()).toBe(true);
      expect(await servedCommonName(port)).toBe('other');
    } finally {
      await stop();
    }
  });

  it('refuses to start with a missing, non-PEM or mismatched certificate, naming the file', () => {
    const logger = pino({ level: 'silent' });
    const start = (files: ServerCertificate) => () => createListener(files, {}, () => {}, logger);
    expect(start({ certFile: join(dir, 'absent.crt'), keyFile: first.keyFile })).toThrow(
      /cannot read the TLS certificate .*absent\.crt/,
    );
    expect(start({ certFile: join(dir, 'first.ext'), keyFile: first.keyFile })).toThrow(
      /the TLS certificate .*first\.ext is not PEM/,
    );
    expect(start({ certFile: first.certFile, keyFile: renewed.keyFile })).toThrow(/are unusable together/);
  });

  it('speaks plain HTTP without TLS files', () => {
    const listener = createListener(undefined, {}, () => {}, pino({ level: 'silent' }));
    expect(listener.scheme).toBe('http');
    expect(listener.reloadCertificate).toBeUndefined();
  });
});
