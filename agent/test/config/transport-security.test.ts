import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/droplet-config.js';
import { readCaFile, transportTo } from '../../src/config/transport-security.js';
import { createTestCa } from '../../../test/integration/helpers/test-certificates.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

describe('transportTo', () => {
  it('allows TLS anywhere and plain connections to loopback', () => {
    expect(transportTo('https://outpost.example.com', {})).toBe('encrypted');
    expect(transportTo('wss://10.1.2.3:8443', {})).toBe('encrypted');
    expect(transportTo('http://127.0.0.1:8080', {})).toBe('loopback');
    expect(transportTo('ws://localhost:8080', {})).toBe('loopback');
    expect(transportTo('http://[::1]:8080', {})).toBe('loopback');
  });

  it('refuses plain http:// and ws:// to any other server unless --insecure', () => {
    for (const server of ['http://outpost.example.com', 'ws://10.1.2.3:8080', 'http://0.0.0.0:8080']) {
      expect(() => transportTo(server, {})).toThrow(ConfigError);
      expect(() => transportTo(server, {})).toThrow(/in the clear.*--insecure/);
      expect(transportTo(server, { insecure: true })).toBe('insecure');
    }
  });
});

describe('readCaFile', () => {
  it('reads PEM certificates and refuses anything else, naming the file', async () => {
    const dir = await tempDir();
    const ca = createTestCa(dir);
    expect(await readCaFile(ca.certFile)).toBe(ca.pem);
    await expect(readCaFile(join(dir, 'absent.pem'))).rejects.toThrow(/--ca-file: cannot read .*absent\.pem/);
    await expect(readCaFile(ca.keyFile)).rejects.toThrow(/holds no PEM certificate/);
    const broken = join(dir, 'broken.pem');
    await writeFile(broken, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
    await expect(readCaFile(broken)).rejects.toThrow(ConfigError);
  });
});
