import { randomBytes, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  Channel,
  ChannelTable,
  LinkBacklog,
  decodeChannelFrame,
  encodeChannelFrame,
  unavailable,
} from '../../src/index.js';
import type { ChannelFrame, FlowSettings } from '../../src/index.js';

const FLOW: FlowSettings = { windowBytes: 64 * 1024, ackEveryBytes: 16 * 1024, maxFrameBytes: 8 * 1024 };

/** Two tables joined by an asynchronous in-memory link that records every frame it carries. */
function link(flow: FlowSettings = FLOW) {
  const carried: { to: 'a' | 'b'; frame: ChannelFrame; bytes: Uint8Array }[] = [];
  let up = true;
  const deliver = (to: 'a' | 'b', bytes: Uint8Array): boolean => {
    if (!up) return false;
    const decoded = decodeChannelFrame(bytes);
    if (decoded.ok) carried.push({ to, frame: decoded.frame, bytes });
    setImmediate(() => (to === 'a' ? a : b).route(bytes));
    return true;
  };
  const a: ChannelTable = new ChannelTable((bytes) => deliver('b', bytes), flow);
  const b: ChannelTable = new ChannelTable((bytes) => deliver('a', bytes), flow);
  return {
    a,
    b,
    carried,
    cut: () => {
      up = false;
      a.failAll(unavailable('link down'));
      b.failAll(unavailable('link down'));
    },
  };
}

async function collect(channel: Channel): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of channel) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));

describe('channels over a link', () => {
  it('carry a large stream intact and in order, never more than a window ahead of the reader', async () => {
    const { a, b, carried } = link();
    const sender = a.open(7);
    const receiver = b.open(7);
    const data = randomBytes(3 * 1024 * 1024 + 123);
    const received = collect(receiver);
    for (let at = 0; at < data.length; at += 100_000) await sender.write(data.subarray(at, at + 100_000));
    await sender.end();
    const got = await received;
    expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));

    let acked = 0;
    for (const { frame } of carried) {
      if (frame.kind === 'ACK') acked = Math.max(acked, frame.offset);
      if (frame.kind === 'DATA') {
        expect(frame.payload.length).toBeLessThanOrEqual(FLOW.maxFrameBytes);
        expect(frame.offset + frame.payload.length - acked).toBeLessThanOrEqual(FLOW.windowBytes);
      }
    }
    expect(carried.filter((c) => c.frame.kind === 'ACK').length).toBeGreaterThan(10);
  });

  it('holds data back while the link has too much queued, and lets it go once the socket took half of it', async () => {
    const backlog = new LinkBacklog(1024 * 1024);
    const taken: (() => void)[] = [];
    const sent: Uint8Array[] = [];
    const channel = new Channel({
      id: 1,
      transmit: (frame) => (sent.push(frame), taken.push(backlog.track(frame.length)), true),
      linkReady: backlog.ready,
      flow: FLOW,
    });
    const queuedElsewhere = backlog.track(10 * 1024 * 1024);
    const writing = channel.write(new Uint8Array(1000));
    await settle();
    expect(sent).toHaveLength(0);
    queuedElsewhere();
    await writing;
    expect(sent).toHaveLength(1);
    expect(backlog.bytes).toBe(1000 + 14);
    taken.shift()!();
    taken.shift()?.(); // a callback called twice changes nothing
    expect(backlog.bytes).toBe(0);

    const stillQueued = backlog.track(10 * 1024 * 1024);
    const stuck = channel.write(new Uint8Array(10));
    channel.fail(unavailable('link down'));
    await expect(stuck).rejects.toMatchObject({ status: 'UNAVAILABLE' });
    stillQueued();
  });

  it('wakes a held-back writer only once the queue is down to half the limit', async () => {
    const backlog = new LinkBacklog(1000);
    const first = backlog.track(600);
    const second = backlog.track(600);
    const ready = backlog.ready();
    expect(ready).toBeDefined();
    let woke = false;
    void ready!.then(() => (woke = true));
    first(); // 600 queued: within the limit, but above half of it
    await settle();
    expect(woke).toBe(false);
    second();
    await settle();
    expect(woke).toBe(true);
    expect(backlog.ready()).toBeUndefined();
  });

  it('a reader that stops reading stalls the writer at the window', async () => {
    const { a, b } = link();
    const sender = a.open(1);
    b.open(1); // nobody reads
    let written = 0;
    const writing = (async () => {
      for (;;) {
        await sender.write(new Uint8Array(4096));
        written += 4096;
      }
    })();
    writing.catch(() => undefined);
    await settle();
    expect(written).toBeLessThanOrEqual(FLOW.windowBytes);
    expect(written).toBeGreaterThan(FLOW.windowBytes - 8192);
    sender.abort({ status: 'ABORTED', message: 'test over' });
    await expect(writing).rejects.toThrow('test over');
  });

  it('both directions work on one channel, each ended on its own', async () => {
    const { a, b } = link();
    const client = a.open(2);
    const server = b.open(2);
    const echo = (async () => {
      const request = await server.readAll();
      await server.write(new TextEncoder().encode(`echo:${new TextDecoder().decode(request)}`));
      await server.end();
    })();
    await client.write(new TextEncoder().encode('hello'));
    await client.end();
    expect(new TextDecoder().decode(await client.readAll())).toBe('echo:hello');
    await echo;
  });

  it('an abort reaches the other end as its error, failing reads and writes', async () => {
    const { a, b } = link();
    const sender = a.open(3);
    const receiver = b.open(3);
    const reading = collect(receiver);
    await sender.write(new Uint8Array(10));
    receiver.abort({ status: 'INVALID_ARGUMENT', message: 'refused: bad path' });
    await expect(reading).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
    await settle();
    await expect(sender.write(new Uint8Array(1))).rejects.toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'refused: bad path',
    });
    expect(sender.error).toBeInstanceOf(ApiError);
  });

  it('a cut link fails every open channel as UNAVAILABLE', async () => {
    const { a, b, cut } = link();
    const receiver = b.open(4);
    a.open(4);
    const reading = collect(receiver);
    cut();
    await expect(reading).rejects.toMatchObject({ status: 'UNAVAILABLE' });
    expect(a.size + b.size).toBe(0);
  });

  it('a sender that forgets its channel right after its end still delivers everything', async () => {
    const { a, b, carried } = link();
    const sender = a.open(11);
    const receiver = b.open(11);
    const data = randomBytes(FLOW.windowBytes * 3);
    const sending = (async () => {
      await sender.write(data);
      await sender.end();
      a.release(11); // trailing acknowledgements now reach no channel
    })();
    const got = await collect(receiver);
    await sending;
    await settle();
    expect(got.equals(data)).toBe(true);
    expect(carried.filter((c) => c.frame.kind === 'ERROR')).toHaveLength(0);
  });

  it('works when the receiver acknowledges less often than the sender window needs', async () => {
    const sent: Uint8Array[] = [];
    const far: { table?: ChannelTable } = {};
    const small = new ChannelTable((f) => (setImmediate(() => far.table?.route(f)), sent.push(f), true), {
      windowBytes: 16 * 1024,
      ackEveryBytes: 16 * 1024,
      maxFrameBytes: 4 * 1024,
    });
    const peer = new ChannelTable((f) => (setImmediate(() => small.route(f)), true), {
      windowBytes: 1024 * 1024,
      ackEveryBytes: 512 * 1024,
      maxFrameBytes: 64 * 1024,
    });
    far.table = peer;
    const sender = small.open(1);
    const receiver = peer.open(1);
    const data = randomBytes(200_000);
    const got = collect(receiver);
    await sender.write(data);
    await sender.end();
    expect((await got).equals(data)).toBe(true);
  });

  it('DATA for a channel that is not open is answered with ERROR; other frames and ERRORs are not', async () => {
    const { a, b, carried } = link();
    const orphan = a.open(9);
    const write = orphan.write(new Uint8Array(5));
    await write;
    await settle();
    expect(orphan.error).toMatchObject({ status: 'NOT_FOUND' });
    expect(carried.filter((c) => c.frame.kind === 'ERROR')).toHaveLength(1);
    expect(b.route(new Uint8Array(2))).toBe('malformed');
    for (const kind of ['ACK', 'CLOSE'] as const) {
      expect(b.route(encodeChannelFrame({ kind, channelId: 40, offset: 0, payload: new Uint8Array(0) }))).toBe(
        'unknown-channel',
      );
    }
    await settle();
    expect(carried.filter((c) => c.frame.kind === 'ERROR')).toHaveLength(1);
  });

  it('a CLOSE that does not match the bytes received is a protocol error', async () => {
    const sent: Uint8Array[] = [];
    const channel = new Channel({ id: 5, transmit: (f) => (sent.push(f), true), flow: FLOW });
    const reading = collect(channel);
    channel.receive({ kind: 'DATA', channelId: 5, offset: 0, payload: new Uint8Array(10) });
    channel.receive({ kind: 'CLOSE', channelId: 5, offset: 11, payload: new Uint8Array(0) });
    await expect(reading).rejects.toThrow(/protocol error/);
    const reply = decodeChannelFrame(sent.at(-1)!);
    expect(reply.ok && reply.frame.kind).toBe('ERROR');
  });

  it('a payload buffer goes out as one frame in its own memory, its header written in the room before it', async () => {
    const { a, b, carried } = link();
    const sender = a.open(12);
    const receiver = b.open(12);
    const first = sender.payloadBuffer(FLOW.maxFrameBytes);
    first.fill(1);
    const second = sender.payloadBuffer(1000);
    second.fill(2);
    const got = collect(receiver);
    await sender.write(first.subarray(0, 3000));
    await sender.write(second);
    await sender.end();
    expect((await got).equals(Buffer.concat([Buffer.alloc(3000, 1), Buffer.alloc(1000, 2)]))).toBe(true);
    const data = carried.filter((c) => c.frame.kind === 'DATA');
    expect(data.map((c) => [c.frame.offset, c.frame.payload.length])).toEqual([
      [0, 3000],
      [3000, 1000],
    ]);
    // the very memory handed out: no copy
    expect(data[0]?.bytes.buffer).toBe(first.buffer);
    expect(data[1]?.bytes.buffer).toBe(second.buffer);
  });

  it('a payload buffer waits for credit for all its bytes rather than going out in pieces', async () => {
    const sent: Uint8Array[] = [];
    const channel = new Channel({ id: 13, transmit: (f) => (sent.push(f), true), flow: FLOW });
    await channel.write(new Uint8Array(FLOW.windowBytes - 1000));
    const payload = channel.payloadBuffer(FLOW.maxFrameBytes);
    const writing = channel.write(payload);
    await settle();
    const framesBefore = sent.length;
    channel.receive({ kind: 'ACK', channelId: 13, offset: FLOW.maxFrameBytes, payload: new Uint8Array(0) });
    await writing;
    expect(sent.length).toBe(framesBefore + 1);
    const last = decodeChannelFrame(sent.at(-1)!);
    expect(last.ok && [last.frame.offset, last.frame.payload.length]).toEqual([
      FLOW.windowBytes - 1000,
      FLOW.maxFrameBytes,
    ]);
  });

  it('a payload buffer larger than a frame is a plain buffer, sent in pieces as any data', async () => {
    const sent: Uint8Array[] = [];
    const channel = new Channel({ id: 14, transmit: (f) => (sent.push(f), true), flow: FLOW });
    const payload = channel.payloadBuffer(FLOW.maxFrameBytes * 2);
    expect(payload.byteOffset).not.toBe(14);
    await channel.write(payload);
    expect(sent).toHaveLength(2);
  });

  it('a receiver takes data up to its receive limit, beyond the window it sends with', async () => {
    const flow = { ...FLOW, receiveLimitBytes: FLOW.windowBytes * 4 };
    const channel = new Channel({ id: 15, transmit: () => true, flow });
    channel.receive({ kind: 'DATA', channelId: 15, offset: 0, payload: new Uint8Array(FLOW.windowBytes * 4) });
    expect(channel.error).toBeUndefined();
    channel.receive({ kind: 'DATA', channelId: 15, offset: FLOW.windowBytes * 4, payload: new Uint8Array(1) });
    expect(channel.error?.message).toMatch(/overflow/);
  });

  it('data beyond the window is a protocol error', async () => {
    const channel = new Channel({ id: 6, transmit: () => true, flow: FLOW });
    channel.receive({ kind: 'DATA', channelId: 6, offset: 0, payload: new Uint8Array(FLOW.windowBytes + 1) });
    expect(channel.error?.message).toMatch(/overflow/);
  });

  it('readAll refuses answers larger than its limit', async () => {
    const channel = new Channel({ id: 8, transmit: () => true, flow: FLOW });
    channel.receive({ kind: 'DATA', channelId: 8, offset: 0, payload: new Uint8Array(100) });
    channel.receive({ kind: 'CLOSE', channelId: 8, offset: 100, payload: new Uint8Array(0) });
    await expect(channel.readAll(50)).rejects.toThrow(/larger than 50/);
  });

  it('encodes what it sends as frames a table routes', () => {
    const sent: Uint8Array[] = [];
    const table = new ChannelTable((f) => (sent.push(f), true));
    expect(
      table.route(encodeChannelFrame({ kind: 'ERROR', channelId: 1, offset: 0, payload: new Uint8Array(0) })),
    ).toBe('unknown-channel');
    expect(sent).toHaveLength(0);
  });
});
