import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { pruneDeviceData, pruneReason } from '../../src/schedule/housekeeping.js';

const tempDir = useTempDirs();
const NOW = Date.parse('2026-05-20T04:17:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function file(path: string, ageMs: number, content = ''): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  const time = new Date(NOW - ageMs);
  await utimes(path, time, time);
}

describe('housekeeping', () => {
  it('names what goes: crash-left temporary files, old rotated logs, long-expired locks', () => {
    const at = (name: string, place: 'data' | 'workloads' | 'locks', ageMs: number, content?: string) =>
      pruneReason(
        { path: name, name, place, mtimeMs: NOW - ageMs, ...(content === undefined ? {} : { content }) },
        NOW,
      );
    expect(at('.agent-state.json.0123456789ab.tmp', 'data', 2 * HOUR)).toMatch(/temporary/);
    expect(at('.agent-state.json.0123456789ab.tmp', 'data', HOUR / 2)).toBeUndefined();
    expect(at('web.log.1', 'workloads', 8 * DAY)).toMatch(/rotated/);
    expect(at('web.log.1', 'workloads', 6 * DAY)).toBeUndefined();
    expect(at('web.log', 'workloads', 30 * DAY)).toBeUndefined();
    expect(at('db', 'locks', 2 * DAY + HOUR)).toMatch(/expired/); // the 24 h cap, then a day's grace
    expect(at('db', 'locks', 2 * HOUR, new Date(NOW - 2 * DAY).toISOString())).toMatch(/expired/);
    expect(at('db', 'locks', 2 * HOUR)).toBeUndefined();
  });

  it('prunes real files under {device_root}/data and keeps the rest', async () => {
    const data = join(await tempDir(), 'data');
    await file(join(data, '.desired-device.json.0123456789ab.tmp'), 2 * HOUR);
    await file(join(data, 'desired-device.json'), 30 * DAY, '{}');
    await file(join(data, 'workloads', 'pod-a', 'web.log.1'), 8 * DAY);
    await file(join(data, 'workloads', 'pod-a', 'web.log'), 8 * DAY);
    await file(join(data, 'workloads', 'pod-a', 'db.log.1'), DAY);
    await file(join(data, 'locks', 'stale'), 3 * DAY);
    await file(join(data, 'locks', 'live'), HOUR, new Date(NOW + HOUR).toISOString());
    const { logger } = capturedLogger();
    const removed = await pruneDeviceData(data, logger, NOW);
    expect(removed.sort()).toEqual(
      [
        join(data, '.desired-device.json.0123456789ab.tmp'),
        join(data, 'locks', 'stale'),
        join(data, 'workloads', 'pod-a', 'web.log.1'),
      ].sort(),
    );
    expect((await readdir(data)).sort()).toEqual(['desired-device.json', 'locks', 'workloads']);
    expect((await readdir(join(data, 'workloads', 'pod-a'))).sort()).toEqual(['db.log.1', 'web.log']);
    expect(await readdir(join(data, 'locks'))).toEqual(['live']);
  });
});
