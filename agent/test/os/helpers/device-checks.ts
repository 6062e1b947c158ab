import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ReportedStatus } from '@outpost/shared';

/** The version the simulated device really runs: its booted slot's version file. */
export async function runningSlotVersion(root: string): Promise<string> {
  const boot = JSON.parse(await readFile(join(root, 'sim-run', 'boot.json'), 'utf8')) as { slot: string };
  return (await readFile(join(root, 'slots', `${boot.slot}.version`), 'utf8')).trim();
}

/** status.deviceInfo.osVersion is always the committed slot's; never a trial's. */
export function expectOnlyCommittedVersionsReported(statuses: readonly ReportedStatus[]): void {
  for (const status of statuses) {
    const version = status.deviceInfo?.osVersion;
    const os = status.osUpdate;
    if (version === undefined || os?.activeSlot === undefined || os.runningSlot === undefined) continue;
    expect(version).toBe(os.slots?.[os.activeSlot]?.version);
    if (os.runningSlot !== os.activeSlot) {
      const trialVersion = os.slots?.[os.runningSlot]?.version;
      if (trialVersion !== os.slots?.[os.activeSlot]?.version) expect(version).not.toBe(trialVersion);
    }
  }
}
