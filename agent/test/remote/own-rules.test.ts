import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { Channel } from '@outpost/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardService } from '../../src/remote/forward-service.js';
import { terminalService } from '../../src/remote/terminal-service.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

/** The agent holds remote sessions to its own stored spec, whatever the control plane's open asks. */
const tempDir = useTempDirs();
const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

const channel = (): Channel => new Channel({ id: 1, transmit: () => true });

async function desiredFile(remoteAccess?: unknown): Promise<string> {
  const file = join(await tempDir(), 'desired-device.json');
  const spec = remoteAccess === undefined ? {} : { remoteAccess };
  await writeFile(file, JSON.stringify({ name: 'projects/p/regions/r/devices/d', spec, metadata: {} }));
  return file;
}

async function listening(): Promise<number> {
  const server = createServer((socket) => socket.end());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('remote.forward', () => {
  it("the device's own forwardTargets win over the list the control plane sends", async () => {
    const file = await desiredFile({ forwardTargets: ['10.1.2.3'] });
    const open = forwardService(capturedLogger().logger, file);
    const port = await listening();
    await expect(open({ host: '127.0.0.1', port, allowedTargets: ['127.0.0.1'] }, channel())).rejects.toMatchObject({
      status: 'PERMISSION_DENIED',
      message: expect.stringMatching(/forwards only to 10\.1\.2\.3/),
    });
  });

  it('a stored spec without remoteAccess allows 127.0.0.1 only', async () => {
    const open = forwardService(capturedLogger().logger, await desiredFile());
    const port = await listening();
    await expect(open({ host: 'localhost', port, allowedTargets: ['localhost'] }, channel())).rejects.toMatchObject({
      status: 'PERMISSION_DENIED',
    });
    const opened = await open({ host: '127.0.0.1', port, allowedTargets: [] }, channel());
    expect(opened.run).toBeTypeOf('function');
  });

  it("the device's disablePortForward refuses", async () => {
    const open = forwardService(capturedLogger().logger, await desiredFile({ disablePortForward: true }));
    await expect(open({ host: '127.0.0.1', port: 1, allowedTargets: ['127.0.0.1'] }, channel())).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
    });
  });

  it('before any spec is stored, the control plane’s list is used', async () => {
    const open = forwardService(capturedLogger().logger, join(await tempDir(), 'none.json'));
    await expect(open({ host: '127.0.0.1', port: 1, allowedTargets: ['10.0.0.1'] }, channel())).rejects.toMatchObject({
      status: 'PERMISSION_DENIED',
    });
  });
});

describe('remote.terminal', () => {
  it("the device's disableTerminal refuses", async () => {
    const open = terminalService(capturedLogger().logger, await desiredFile({ disableTerminal: true }));
    await expect(open({ command: ['true'] }, channel())).rejects.toMatchObject({
      status: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/disableTerminal/),
    });
  });

  it('a user the device does not have is NOT_FOUND', async () => {
    const open = terminalService(capturedLogger().logger, await desiredFile({ shellUser: 'no-such-user-e21' }));
    await expect(open({ command: ['true'] }, channel())).rejects.toMatchObject({ status: 'NOT_FOUND' });
  });
});
