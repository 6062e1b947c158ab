import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { unavailable } from '@outpost/shared';
import { refuseUpgrade } from '../../src/gateway/agent-gateway.js';

describe('refuseUpgrade', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("survives the client resetting the connection (node's HTTP server no longer handles the socket's errors)", async () => {
    const refused = new Promise<Duplex>((resolve) => {
      server = createServer();
      server.on('upgrade', (_req, socket: Duplex) => {
        refuseUpgrade(socket, unavailable('busy'), { 'Retry-After': '4' });
        resolve(socket);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = connect((server!.address() as AddressInfo).port, '127.0.0.1');
    const answer = new Promise<string>((resolve) => client.once('data', (data) => resolve(data.toString('latin1'))));
    client.write('GET /v1/agent/connect HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    const socket = await refused;
    expect(await answer).toMatch(/^HTTP\/1\.1 503 UNAVAILABLE\r\n[^]*Retry-After: 4\r\n/);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // what a reset by the peer raises on the server's socket: without a listener it would be thrown (uncaught)
    expect(() =>
      socket.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })),
    ).not.toThrow();
    await closed;
    client.resetAndDestroy();
  });
});
