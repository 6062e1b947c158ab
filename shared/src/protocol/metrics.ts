import { z } from 'zod';
import { storageUsageSchema } from './device-info.js';
import type { DeviceUsage } from './device-info.js';

const nonNegative = z.number().nonnegative();

/** One sample of the device's resource usage, sent every metrics interval while connected. */
export const metricsSampleSchema = z.object({
  /** RFC 3339 time of the sample */
  time: z.iso.datetime({ offset: true }),
  cpu: z.object({ usagePercent: nonNegative }),
  memory: z.object({ totalBytes: nonNegative, usedBytes: nonNegative }),
  storage: z.array(storageUsageSchema),
  temperatureCelsius: z.number().optional(),
  uptimeSeconds: nonNegative,
  /** 1-minute load average */
  load1: nonNegative.optional(),
});

export type MetricsSample = z.infer<typeof metricsSampleSchema>;

/** `status.deviceInfo.usage` as the server derives it from the latest metrics sample. */
export function usageFromMetrics(sample: MetricsSample): DeviceUsage {
  const usage: DeviceUsage = {
    cpuPercent: sample.cpu.usagePercent,
    memoryUsedBytes: sample.memory.usedBytes,
    memoryTotalBytes: sample.memory.totalBytes,
    storage: sample.storage,
  };
  if (sample.temperatureCelsius !== undefined) usage.temperatureCelsius = sample.temperatureCelsius;
  return usage;
}
