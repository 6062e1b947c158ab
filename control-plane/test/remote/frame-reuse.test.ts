import type { AddressInfo } from 'node:net';
import { FramePool, linkChannelTable } from '@outpost/shared';
import type { ChannelTable, FlowSettings } from '@outpost/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { collect } from '../../../shared/test/channels/linked-tables.js';

/** a window far beyond what loopback's kernel buffers hold: frames queue in the sender's process, still unsent */
const FLOW: FlowSettings = { windowBytes: 16 * 1024 * 1024, ackEveryBytes: 256 * 1024, maxFrameBytes: 256 * 1024 };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** Two channel tables over a real WebSocket on loopback, each sending through its link's frame pool. */
async function linkedOverWebSocket(): Promise<{
  device: ChannelTable;
  server: ChannelTable;
  deviceSocket: WebSocket;
  serverSocket: WebSocket;
}> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  closers.push(() => wss.close());
  await new Promise((resolve) => wss.once('listening', resolve));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
    perMessageDeflate: false,
    generateMask: (mask: Buffer) => mask.fill(0),
  });
  closers.push(() => client.terminate());
  const tableOf = (ws: WebSocket): ChannelTable => {
    const table = linkChannelTable((frame, sent) => (ws.send(frame, sent), true), FLOW, new FramePool(FLOW));
    ws.on('message', (data: Buffer) => table.route(data));
    return table;
  };
  const [serverSide] = await Promise.all([accepted, new Promise((resolve) => client.once('open', resolve))]);
  return { device: tableOf(client), server: tableOf(serverSide), deviceSocket: client, serverSocket: serverSide };
}

const pattern = (bytes: number, seed: number): Buffer => {
  const data = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (i * 7 + seed + (i >> 12)) & 0xff;
  return data;
};

describe('frames reused once their socket took them', () => {
  it('carry every byte intact while many frames wait unsent in the sending process', async () => {
    const { device, server, deviceSocket, serverSocket } = await linkedOverWebSocket();
    // the receiver reads nothing until the sender holds frames its socket has not taken yet
    serverSocket.pause();
    const data = pattern(24 * 1024 * 1024, 1);
    const channel = device.open(7);
    const received = collect(server.open(7));
    // messages of a client's size, joined into the channel's frames (the copying path, which uses the pool)
    for (let at = 0; at < data.length; at += 100_000) void channel.write([data.subarray(at, at + 100_000)]);
    const ended = channel.end();
    while (deviceSocket.bufferedAmount < 1024 * 1024) await new Promise((resolve) => setImmediate(resolve));
    serverSocket.resume();
    await ended;
    expect((await received).equals(data)).toBe(true);
  }, 60_000);
});
