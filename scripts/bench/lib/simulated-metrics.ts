import type { MetricsMessage } from '@outpost/shared';
import { metricsSampleFromFacts } from '../../../agent/src/metrics/metrics-sample.js';
import type { UsageFacts } from '../../../agent/src/metrics/system-facts.js';

const GIB = 1024 ** 3;

/**
 * The metrics message a droplet sends every --metrics-interval (agent/src/metrics/reporting.ts), made by the
 * agent's own metricsSampleFromFacts from usage facts like a small device's: two filesystems, a temperature,
 * values that move with `seq`. Its time is `now`: the control plane records a sample in the history only when
 * its time differs from the last one stored for the device.
 */
export function metricsMessage(device: number, seq: number, now: Date): MetricsMessage {
  const facts: UsageFacts = {
    cpuPercent: (device * 7 + seq * 13) % 100,
    memory: { total: 2 * GIB, available: GIB + ((device + seq) % 512) * 1024 * 1024 },
    filesystems: [
      { fs: '/dev/mmcblk0p2', type: 'ext4', size: 16 * GIB, used: 5 * GIB + seq * 4096, mount: '/' },
      { fs: '/dev/mmcblk0p4', type: 'ext4', size: 8 * GIB, used: GIB + device * 4096, mount: '/data' },
      { fs: 'tmpfs', type: 'tmpfs', size: GIB / 4, used: 1024, mount: '/run' },
    ],
    temperatureCelsius: 40 + (seq % 20),
    uptimeSeconds: 3600 + seq * 60,
    load1: ((device + seq) % 300) / 100,
  };
  return { type: 'metrics', ...metricsSampleFromFacts(facts, now) };
}
