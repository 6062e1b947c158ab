import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_FLOW, ReceiveWindow, SendWindow, checkFlowSettings } from '../../src/channels/index.js';

describe('flow control', () => {
  it('a sender never has more than the window unacknowledged', () => {
    const window = new SendWindow(100);
    expect(window.take(60)).toBe(0);
    expect(window.credit).toBe(40);
    expect(() => window.take(41)).toThrow(RangeError);
    expect(window.take(40)).toBe(60);
    expect(window.credit).toBe(0);
    expect(window.acknowledge(50)).toBe(true);
    expect(window.credit).toBe(50);
    expect(window.acknowledge(20)).toBe(true); // an older acknowledgement changes nothing
    expect(window.credit).toBe(50);
    expect(window.acknowledge(101)).toBe(false); // bytes never sent
  });

  it('a receiver refuses gaps and overflow, and acknowledges what is consumed every ackEvery bytes', () => {
    const window = new ReceiveWindow({ windowBytes: 100, ackEveryBytes: 30 });
    expect(window.accept(0, 50)).toBe('ok');
    expect(window.accept(60, 10)).toBe('out-of-order');
    expect(window.accept(50, 51)).toBe('overflow');
    expect(window.accept(50, 50)).toBe('ok');
    expect(window.consume(20)).toBeUndefined();
    expect(window.consume(20)).toBe(40);
    expect(window.accept(100, 40)).toBe('ok');
    expect(window.accept(140, 1)).toBe('overflow');
  });

  it('sender and receiver agree: whatever the order of sends and consumption, the window holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ send: fc.integer({ min: 1, max: 40 }) }), fc.constant({ consume: true })), {
          maxLength: 200,
        }),
        (steps) => {
          const settings = { windowBytes: 64, ackEveryBytes: 16 };
          const sender = new SendWindow(settings.windowBytes);
          const receiver = new ReceiveWindow(settings);
          const queue: number[] = [];
          for (const step of steps) {
            if ('send' in step) {
              const n = Math.min(step.send, sender.credit);
              if (n === 0) continue;
              const offset = sender.take(n);
              expect(receiver.accept(offset, n)).toBe('ok');
              queue.push(n);
            } else {
              const n = queue.shift();
              if (n === undefined) continue;
              const ack = receiver.consume(n);
              if (ack !== undefined) expect(sender.acknowledge(ack)).toBe(true);
            }
          }
        },
      ),
    );
  });

  it('checks its settings', () => {
    expect(() => checkFlowSettings({ windowBytes: 10, ackEveryBytes: 5, maxFrameBytes: 20 })).toThrow(RangeError);
    expect(() => checkFlowSettings({ windowBytes: 10, ackEveryBytes: 11, maxFrameBytes: 5 })).toThrow(RangeError);
    expect(() =>
      checkFlowSettings({ windowBytes: 10, ackEveryBytes: 5, maxFrameBytes: 5, receiveLimitBytes: 9 }),
    ).toThrow(RangeError);
    expect(checkFlowSettings(DEFAULT_FLOW)).toBe(DEFAULT_FLOW);
  });

  it('a receiver takes up to its receive limit, which may exceed the window it sends with', () => {
    const window = new ReceiveWindow({ windowBytes: 100, ackEveryBytes: 30, receiveLimitBytes: 400 });
    expect(window.accept(0, 400)).toBe('ok');
    expect(window.accept(400, 1)).toBe('overflow');
  });
});
