import type { FlowSettings } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { collect, linkedTables } from '../../../shared/test/channels/linked-tables.js';
import { BatchingChannelWriter } from '../../src/remote/batching-channel-writer.js';

const FLOW: FlowSettings = { windowBytes: 64 * 1024, ackEveryBytes: 16 * 1024, maxFrameBytes: 32 * 1024 };

describe('a batching channel writer', () => {
  it('sends messages that arrive together as one write, in order, then ends', async () => {
    const { a, b, dataFrames } = linkedTables(FLOW);
    const writer = new BatchingChannelWriter(a.open(1));
    const received = collect(b.open(1));
    const messages = Array.from({ length: 40 }, (_, i) => Buffer.alloc(1000, i));
    const written = messages.map((message) => writer.write(message));
    const ended = writer.end();
    await Promise.all([...written, ended]);
    expect(await received).toEqual(Buffer.concat(messages));
    // in as few frames as the frame size allows, not one per message
    expect(dataFrames).toEqual([32 * 1024, 40 * 1000 - 32 * 1024]);
  });

  it('a message that finds the channel idle goes out alone, without waiting for company', async () => {
    const { a, b, dataFrames } = linkedTables(FLOW);
    const writer = new BatchingChannelWriter(a.open(2));
    const reading = b.open(2)[Symbol.asyncIterator]();
    await writer.write(Buffer.from('one'));
    expect(Buffer.from((await reading.next()).value as Uint8Array).toString()).toBe('one');
    await writer.write(Buffer.from('two'));
    expect(Buffer.from((await reading.next()).value as Uint8Array).toString()).toBe('two');
    expect(dataFrames).toEqual([3, 3]);
  });

  it('rejects the writes of a failed channel', async () => {
    const { a, b } = linkedTables(FLOW);
    const channel = a.open(3);
    const writer = new BatchingChannelWriter(channel);
    b.open(3); // nobody reads: the window fills
    const writes = Array.from({ length: 100 }, () => writer.write(Buffer.alloc(4096)));
    const ended = writer.end();
    channel.abort({ status: 'ABORTED', message: 'the client went away' });
    const settled = await Promise.allSettled(writes);
    expect(settled.map((s) => (s.status === 'rejected' ? (s.reason as { status: string }).status : s.status))).toEqual(
      writes.map(() => 'ABORTED'),
    );
    // ending a failed channel sends nothing and waits for nothing
    await ended;
    expect(channel.error?.status).toBe('ABORTED');
  });
});
