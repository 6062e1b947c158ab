import { describe, expect, it } from 'vitest';
import { movesCounts } from '../../src/metrics/fleet-tally.js';

describe('which device changes can move the fleet gauges', () => {
  it('takes creates and deletes, and updates that touch a counted path, above or below it', () => {
    expect(movesCounts(undefined)).toBe(true);
    expect(movesCounts(['metadata.updateTime', 'status.connectionStatus'])).toBe(true);
    expect(movesCounts(['status.deviceInfo'])).toBe(true); // the whole deviceInfo, osVersion with it
    expect(movesCounts(['status.deviceInfo.osVersion'])).toBe(true);
    expect(movesCounts(['status.conditions.0.reason'])).toBe(true);
    expect(movesCounts(['status'])).toBe(true);
  });

  it('skips updates that touch none (a report of memory, a heartbeat time)', () => {
    expect(movesCounts([])).toBe(false);
    expect(movesCounts(['metadata.resourceVersion', 'status.deviceInfo.hardwareInformation.memory.totalBytes'])).toBe(
      false,
    );
    expect(movesCounts(['status.connectionStatusDetail', 'status.deviceInfo.osVersionLabel'])).toBe(false);
  });
});
