import { describe, expect, it } from 'vitest';
import { planNextStep } from '../../src/os/os-planner.js';
import type { PlannerInput, UpgradeGate } from '../../src/os/os-planner.js';
import type { OperationImage, OsOperation } from '../../src/os/os-progress.js';

const NOW = Date.parse('2026-05-01T12:00:00Z');
const NEXT_WINDOW = Date.parse('2026-05-02T02:00:00Z');

const image: OperationImage = {
  version: '1.1.0',
  deviceType: 'simulated',
  sha256: 'a'.repeat(64),
  size: 1000,
  signature: 'sig',
  url: '/v1/artifacts/a',
};

const closed: UpgradeGate = {
  windows: 1,
  windowOpen: false,
  nextWindowStartMs: NEXT_WINDOW,
  downloadInWindowOnly: false,
  heldLocks: [],
};
const open: UpgradeGate = {
  windows: 1,
  windowOpen: true,
  windowClosesAtMs: NOW + 3_600_000,
  downloadInWindowOnly: false,
  heldLocks: [],
};

/** A committed device on 1.0.0 in slot A asked for 1.1.0, with `operation` under way. */
function input(gate: UpgradeGate | undefined, operation?: OsOperation, trySlot?: 'B'): PlannerInput {
  return {
    desired: { version: '1.1.0', image },
    deviceType: 'simulated',
    boot: {
      bootId: 'boot-1',
      bootTimeMs: 0,
      runningSlot: 'A',
      activeSlot: 'A',
      ...(trySlot === undefined ? {} : { trySlot }),
    },
    runningVersion: '1.0.0',
    progress: {
      slots: { A: { version: '1.0.0', good: true } },
      desiredVersion: '1.1.0',
      ...(operation === undefined ? {} : { operation }),
    },
    connected: true,
    commitBlockers: [],
    neverCommit: false,
    commitTimeoutMs: 300_000,
    now: NOW,
    ...(gate === undefined ? {} : { gate }),
  };
}

const verified: OsOperation = { version: '1.1.0', slot: 'B', phase: 'verified', image, bytesWritten: 1000, reboots: 0 };
const switching: OsOperation = { ...verified, phase: 'switching', switchBootId: 'boot-1' };

describe('the upgrade gate in the planner', () => {
  it('downloads outside a window, but waits for the window to switch slots', () => {
    expect(planNextStep(input(closed)).step.kind).toBe('start-download');
    const plan = planNextStep(input(closed, verified));
    expect(plan.step).toEqual({ kind: 'idle', wakeAtMs: NEXT_WINDOW });
    expect(plan.condition).toEqual({
      status: 'False',
      reason: 'WaitingForWindow',
      message: '1.1.0 is ready in slot B; waiting for the maintenance window at 2026-05-02T02:00:00.000Z',
    });
  });

  it('switches and reboots inside a window, and without windows as before', () => {
    expect(planNextStep(input(open, verified)).step.kind).toBe('switch');
    expect(planNextStep(input(undefined, verified)).step.kind).toBe('switch');
    expect(planNextStep(input(open, switching, 'B')).step.kind).toBe('reboot');
  });

  it('does not reboot into a requested try once the window has closed', () => {
    const plan = planNextStep(input(closed, switching, 'B'));
    expect(plan.step.kind).toBe('idle');
    expect(plan.condition?.reason).toBe('WaitingForWindow');
  });

  it('waits for a retained version too', () => {
    const plan = planNextStep({
      ...input(closed),
      progress: {
        slots: { A: { version: '1.0.0', good: true }, B: { version: '1.1.0', good: true } },
        desiredVersion: '1.1.0',
      },
    });
    expect(plan.condition).toMatchObject({
      reason: 'WaitingForWindow',
      message: expect.stringMatching(/^1\.1\.0 is retained in slot B; /),
    });
  });

  it('with downloadInWindowOnly, waits for the window to download', () => {
    const plan = planNextStep(input({ ...closed, downloadInWindowOnly: true }));
    expect(plan.step).toEqual({ kind: 'idle', wakeAtMs: NEXT_WINDOW });
    expect(plan.condition?.message).toBe(
      '1.1.0 is downloaded only in a maintenance window; waiting for the maintenance window at 2026-05-02T02:00:00.000Z',
    );
    expect(planNextStep(input({ ...open, downloadInWindowOnly: true })).step.kind).toBe('start-download');
  });

  it('held update locks defer the switch and the reboot until they are released or expire', () => {
    const locked: UpgradeGate = { ...open, heldLocks: [{ name: 'db', expiresAtMs: NOW + 60_000 }] };
    const plan = planNextStep(input(locked, verified));
    expect(plan.step).toEqual({ kind: 'idle', wakeAtMs: NOW + 60_000 });
    expect(plan.condition).toEqual({
      status: 'False',
      reason: 'WaitingForLocks',
      message: '1.1.0 is ready in slot B; waiting while update lock db (until 2026-05-01T12:01:00.000Z) held',
    });
    expect(planNextStep(input(locked, switching, 'B')).condition?.reason).toBe('WaitingForLocks');
    // a lock does not stop the download
    expect(planNextStep(input(locked)).step.kind).toBe('start-download');
  });

  it('never holds back a trial boot giving up: its reboot into the committed slot is no upgrade step', () => {
    const trial: PlannerInput = {
      ...input({ ...closed, heldLocks: [{ name: 'db', expiresAtMs: NOW + 60_000 }] }),
      boot: { bootId: 'boot-2', bootTimeMs: 0, runningSlot: 'B', activeSlot: 'A' },
      runningVersion: '1.1.0',
      connected: false,
    };
    expect(planNextStep(trial).step.kind).toBe('reboot');
  });
});
