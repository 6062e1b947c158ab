/**
 * scripts/bench/lib/simulated-metrics.ts: the cluster bench's simulated devices send what a droplet sends every
 * --metrics-interval, a metrics message the control plane's parser accepts, timed when it is sent (the history
 * records a sample only when its time differs from the device's last one).
 */
import { encodeMessage, parseAgentMessage } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { metricsMessage } from '../../scripts/bench/lib/simulated-metrics.js';

describe('the simulated metrics message', () => {
  it('is a metrics message the gateway accepts, at the time given, with the data filesystems only', () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const parsed = parseAgentMessage(encodeMessage(metricsMessage(41, 7, now)));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok || parsed.message.type !== 'metrics') throw new Error('not a metrics message');
    expect(parsed.message.time).toBe(now.toISOString());
    expect(parsed.message.storage.map((fs) => fs.mount)).toEqual(['/', '/data']);
    expect(parsed.message.memory.usedBytes).toBeGreaterThan(0);
    expect(parsed.message.memory.usedBytes).toBeLessThan(parsed.message.memory.totalBytes);
  });

  it('changes with every message of a device', () => {
    const now = new Date();
    const [first, second] = [metricsMessage(5, 1, now), metricsMessage(5, 2, now)];
    expect(second.cpu.usagePercent).not.toBe(first.cpu.usagePercent);
    expect(second.uptimeSeconds).toBeGreaterThan(first.uptimeSeconds);
  });
});
