import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import type { Channel } from '@outpost/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, linkedTables } from '../../../shared/test/channels/linked-tables.js';
import { SocketChannelReader } from '../../src/remote/socket-channel-reader.js';

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

/** A server whose first connection gets `onConnection`; answers its port. */
async function serving(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Connects to `port` through a reader into `channel`, as the forward service does. */
async function readerFor(channel: Channel, port: number): Promise<{ reader: SocketChannelReader; socket: Socket }> {
  const reader = new SocketChannelReader(channel);
  const socket = connect({ port, host: '127.0.0.1', onread: reader.onread });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  reader.attach(socket);
  return { reader, socket };
}

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('a socket read into a channel', () => {
  it('arrives intact, then ends, in frames larger than node reads by itself', async () => {
    const data = randomBytes(24 * 1024 * 1024 + 77);
    const port = await serving((socket) => socket.end(data));
    const { a: device, b: server, dataFrames } = linkedTables();
    const { reader } = await readerFor(device.open(3), port);
    const received = collect(server.open(3));
    await reader.run();
    expect(sha(await received)).toBe(sha(data));
    // node's own reads stop at 64 KiB; a read into a payload buffer takes what the kernel holds, up to its size
    expect(Math.max(...dataFrames)).toBeGreaterThan(64 * 1024);
    await reader.closed;
  });

  it('a reader that stops reading stops the socket: the sender is held back by TCP, not by memory', async () => {
    let written = 0;
    let writerStopped!: () => void;
    const stopped = new Promise<void>((resolve) => (writerStopped = resolve));
    const port = await serving((socket) => {
      const block = Buffer.alloc(256 * 1024, 1);
      const more = (): void => {
        while (socket.write(block)) written += block.length;
        written += block.length;
        writerStopped();
        socket.once('drain', more);
      };
      more();
      socket.on('error', () => undefined);
    });
    const { a: device, b: server } = linkedTables();
    const sending = device.open(4);
    server.open(4); // nobody reads: the window fills, then the socket must stop
    const { reader, socket } = await readerFor(sending, port);
    const running = reader.run();
    running.catch(() => undefined);
    await stopped;
    // the writer's socket stays full once the reader stopped: what it managed to write stops growing
    let before = -1;
    while (before !== written) {
      before = written;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // the channel's window, two reads held back and what the kernel buffers on both sides: far below the 1 GiB a
    // reader without backpressure would have taken by now
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(sending.bytesSent).toBeLessThanOrEqual(4 * 1024 * 1024);
    sending.abort({ status: 'ABORTED', message: 'test over' });
    await expect(running).rejects.toMatchObject({ status: 'ABORTED' });
    socket.destroy();
  });

  it('a channel that fails destroys the socket, and the run fails with the channel error', async () => {
    let target: Socket | undefined;
    const port = await serving((socket) => {
      target = socket;
      socket.on('error', () => undefined);
      socket.write(Buffer.alloc(1000, 2));
    });
    const { a: device, b: server } = linkedTables();
    const sending = device.open(5);
    const receiving = server.open(5);
    const { reader } = await readerFor(sending, port);
    const running = reader.run();
    const first = await receiving[Symbol.asyncIterator]().next();
    expect(first.value).toHaveLength(1000);
    receiving.abort({ status: 'ABORTED', message: 'the client went away' });
    await until(() => sending.error !== undefined);
    // the next bytes meet the failed channel
    target?.write(Buffer.alloc(1000, 3));
    await expect(running).rejects.toMatchObject({ status: 'ABORTED' });
    await reader.closed;
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
