import type { MetricsSample, StorageUsage } from '@outpost/shared';
import type { UsageFacts } from './system-facts.js';

/** Filesystems that hold no device data. */
const VOLATILE_FILESYSTEMS = new Set(['tmpfs', 'devtmpfs', 'ramfs', 'squashfs', 'proc', 'sysfs', 'efivarfs']);

export function metricsSampleFromFacts(facts: UsageFacts, now: Date): MetricsSample {
  const memory = facts.memory;
  const sample: MetricsSample = {
    time: now.toISOString(),
    cpu: { usagePercent: round(clamp(facts.cpuPercent ?? 0, 0, 100)) },
    // "used" is what cannot be reclaimed: total minus available (page cache does not count)
    memory: {
      totalBytes: memory?.total ?? 0,
      usedBytes: memory === undefined ? 0 : Math.max(0, memory.total - memory.available),
    },
    storage: storageOf(facts.filesystems ?? []),
    uptimeSeconds: Math.max(0, Math.floor(facts.uptimeSeconds)),
    load1: round(Math.max(0, facts.load1)),
  };
  if (typeof facts.temperatureCelsius === 'number' && Number.isFinite(facts.temperatureCelsius)) {
    sample.temperatureCelsius = round(facts.temperatureCelsius);
  }
  return sample;
}

function storageOf(filesystems: NonNullable<UsageFacts['filesystems']>): StorageUsage[] {
  const byMount = new Map<string, StorageUsage>();
  for (const fs of filesystems) {
    if (VOLATILE_FILESYSTEMS.has(fs.type) || !(fs.size > 0) || byMount.has(fs.mount)) continue;
    byMount.set(fs.mount, { mount: fs.mount, totalBytes: fs.size, usedBytes: Math.max(0, fs.used) });
  }
  return [...byMount.values()];
}

const round = (value: number): number => Math.round(value * 100) / 100;
const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
