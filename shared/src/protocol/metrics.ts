import { z } from 'zod';
import { byteCount, deviceTime, percent } from './bounds.js';
import { storageUsageSchema, temperatureCelsius } from './device-info.js';
import type { DeviceUsage } from './device-info.js';

/** One sample of the device's resource usage, sent every metrics interval while connected. */
export const metricsSampleSchema = z.object({
  /** RFC 3339 time of the sample */
  time: deviceTime,
  cpu: z.object({ usagePercent: percent }),
  memory: z.object({ totalBytes: byteCount, usedBytes: byteCount }).refine((m) => m.usedBytes <= m.totalBytes, {
    message: 'usedBytes must not exceed totalBytes',
    path: ['usedBytes'],
  }),
  storage: z.array(storageUsageSchema).max(1024),
  temperatureCelsius: temperatureCelsius.optional(),
  /** at most a century */
  uptimeSeconds: z
    .number()
    .min(0)
    .max(100 * 366 * 24 * 3600),
  /** 1-minute load average */
  load1: z.number().min(0).max(1_000_000).optional(),
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
