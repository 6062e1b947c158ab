import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentMessage } from '@outpost/shared';
import { StatusReporter } from '../../src/metrics/status-reporter.js';
import type { StatusLink } from '../../src/metrics/status-reporter.js';

/** The link side of the reporter: a connection flag and the messages it carried. */
class RecordingLink implements StatusLink {
  connected = true;
  readonly sent: AgentMessage[] = [];
  send(message: AgentMessage): boolean {
    if (!this.connected) return false;
    this.sent.push(message);
    return true;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('StatusReporter', () => {
  it('sends a status only when its content changed', () => {
    const link = new RecordingLink();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    reporter.report({ deviceInfo: { osVersion: '1.0.0', kernelVersion: '6.1' } });
    reporter.report({ deviceInfo: { kernelVersion: '6.1', osVersion: '1.0.0' } }); // same content, other key order
    reporter.report({ deviceInfo: { osVersion: '1.0.0' } }); // merged: still the same
    reporter.report({ addresses: [{ address: '10.0.0.2', type: 'InternalIP' }] });
    reporter.report({ addresses: [{ address: '10.0.0.2', type: 'InternalIP' }] });
    reporter.report({ deviceInfo: { osVersion: '1.0.1' } });

    expect(link.sent).toEqual([
      { type: 'status', seq: 1, deviceInfo: { osVersion: '1.0.0', kernelVersion: '6.1' } },
      {
        type: 'status',
        seq: 2,
        deviceInfo: { osVersion: '1.0.0', kernelVersion: '6.1' },
        addresses: [{ address: '10.0.0.2', type: 'InternalIP' }],
      },
      {
        type: 'status',
        seq: 3,
        deviceInfo: { osVersion: '1.0.1', kernelVersion: '6.1' },
        addresses: [{ address: '10.0.0.2', type: 'InternalIP' }],
      },
    ]);
  });

  it('keeps the latest status while offline and sends it whole on reconnect', () => {
    const link = new RecordingLink();
    const reporter = new StatusReporter({ link, minIntervalMs: 0 });
    reporter.report({ deviceInfo: { osVersion: '1.0.0' } });
    link.connected = false;
    reporter.report({ deviceInfo: { osVersion: '1.0.1' } });
    reporter.report({ deviceInfo: { osVersion: '1.0.2' } });
    expect(link.sent).toHaveLength(1);

    link.connected = true;
    reporter.resend();
    expect(link.sent.at(-1)).toEqual({ type: 'status', seq: 2, deviceInfo: { osVersion: '1.0.2' } });
    reporter.resend(); // after every welcome, even without a change
    expect(link.sent).toHaveLength(3);
  });

  it('coalesces changes within the throttle interval into one trailing status', () => {
    vi.useFakeTimers();
    const link = new RecordingLink();
    const reporter = new StatusReporter({ link, minIntervalMs: 1_000 });
    reporter.report({ deviceInfo: { osVersion: '1' } });
    reporter.report({ deviceInfo: { osVersion: '2' } });
    reporter.report({ deviceInfo: { osVersion: '3' } });
    expect(link.sent).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(link.sent).toHaveLength(2);
    expect(link.sent[1]).toMatchObject({ deviceInfo: { osVersion: '3' } });
    vi.advanceTimersByTime(5_000);
    expect(link.sent).toHaveLength(2);
    reporter.stop();
  });

  it('keeps a condition transition time until its status changes', () => {
    const link = new RecordingLink();
    let now = new Date('2025-01-01T00:00:00Z');
    const reporter = new StatusReporter({ link, minIntervalMs: 0, now: () => now });
    reporter.setCondition({ type: 'OSReady', status: 'False', reason: 'Downloading', message: '10%' });
    now = new Date('2025-01-01T00:01:00Z');
    reporter.setCondition({ type: 'OSReady', status: 'False', reason: 'Downloading', message: '60%' });
    reporter.setCondition({ type: 'Healthy/http', status: 'True', reason: 'Passing', message: '' });
    now = new Date('2025-01-01T00:02:00Z');
    reporter.setCondition({ type: 'OSReady', status: 'True', reason: 'Converged', message: '' });

    expect(reporter.current.conditions).toEqual([
      {
        type: 'OSReady',
        status: 'True',
        reason: 'Converged',
        message: '',
        lastTransitionTime: '2025-01-01T00:02:00.000Z',
      },
      {
        type: 'Healthy/http',
        status: 'True',
        reason: 'Passing',
        message: '',
        lastTransitionTime: '2025-01-01T00:01:00.000Z',
      },
    ]);
    expect(link.sent[1]).toMatchObject({
      conditions: [{ type: 'OSReady', message: '60%', lastTransitionTime: '2025-01-01T00:00:00.000Z' }],
    });
    expect(link.sent).toHaveLength(4);
  });
});
