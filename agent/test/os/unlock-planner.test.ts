import { describe, expect, it } from 'vitest';
import type { OsOperation } from '../../src/os/os-progress.js';
import { boundCondition, planSwitchUnlock, planUnlock, requiredSlots } from '../../src/os/unlock/unlock-planner.js';

const operation = (phase: OsOperation['phase']): OsOperation => ({
  version: '1.1.0',
  slot: 'B',
  phase,
  bytesWritten: 0,
  reboots: 0,
});

describe('unlock planner: which boot chains the TPM policy accepts', () => {
  it('accepts only the committed slot while nothing switches (downloading, verified, no operation)', () => {
    const boot = { runningSlot: 'A', activeSlot: 'A' } as const;
    expect(requiredSlots(boot, undefined)).toEqual(['A']);
    expect(requiredSlots(boot, operation('downloading'))).toEqual(['A']);
    expect(requiredSlots(boot, operation('verified'))).toEqual(['A']);
  });

  it('accepts the running and the trial slot from the switch until the commit', () => {
    // the try is recorded (power cut before the bootloader was told)
    expect(requiredSlots({ runningSlot: 'A', activeSlot: 'A' }, operation('switching'))).toEqual(['A', 'B']);
    // the bootloader holds a try even without an operation
    expect(requiredSlots({ runningSlot: 'A', activeSlot: 'A', trySlot: 'B' }, undefined)).toEqual(['A', 'B']);
    // the trial boot runs B; A is still the committed slot a fallback returns to
    expect(requiredSlots({ runningSlot: 'B', activeSlot: 'A' }, operation('switching'))).toEqual(['A', 'B']);
    expect(requiredSlots({ runningSlot: 'B', activeSlot: 'A' }, operation('abandoning'))).toEqual(['A', 'B']);
  });

  it('narrows to the committed slot after a commit, also when the power was cut between commit and narrowing', () => {
    // committed, progress not yet updated: the operation still names B, and B is the committed slot
    const step = planUnlock({ slots: ['A', 'B'] }, { runningSlot: 'B', activeSlot: 'B' }, operation('switching'));
    expect(step).toEqual({
      kind: 'seal',
      slots: ['B'],
      reason: 'slot B is the committed slot: only its boot chain unlocks',
    });
    // planned again once sealed: nothing to do (idempotent)
    expect(planUnlock({ slots: ['B'] }, { runningSlot: 'B', activeSlot: 'B' }, operation('switching'))).toEqual({
      kind: 'keep',
    });
  });

  it('keeps the retained slot through a rollback or fallback and narrows to it once the operation is recorded', () => {
    const fallenBack = { runningSlot: 'A', activeSlot: 'A', lastFailed: 'B' } as const;
    // the operation is not recorded as rolled back yet: both stay accepted
    expect(planUnlock({ slots: ['A', 'B'] }, fallenBack, operation('switching'))).toEqual({ kind: 'keep' });
    // recorded: only the retained slot
    expect(planUnlock({ slots: ['A', 'B'] }, fallenBack, undefined)).toMatchObject({ kind: 'seal', slots: ['A'] });
  });

  it('never plans a policy without the committed slot, whatever was sealed before', () => {
    for (const sealed of [[], ['B'], ['A', 'B']] as const) {
      const step = planUnlock({ slots: [...sealed] }, { runningSlot: 'A', activeSlot: 'A' }, undefined);
      const slots = step.kind === 'seal' ? step.slots : sealed;
      expect(slots).toContain('A');
    }
  });

  it('widens before a switch to the running and the trial slot, and does nothing when already wide', () => {
    const boot = { runningSlot: 'A', activeSlot: 'A' } as const;
    expect(planSwitchUnlock({ slots: ['A'] }, boot, 'B')).toEqual({
      kind: 'seal',
      slots: ['A', 'B'],
      reason: 'slot B is about to be tried: the boot chains of slots A and B unlock',
    });
    expect(planSwitchUnlock({ slots: ['A', 'B'] }, boot, 'B')).toEqual({ kind: 'keep' });
  });

  it('reports Bound, Widened, or NotUnlocked when this boot needed the recovery key', () => {
    expect(boundCondition({ slots: ['A'] }, [7, 8, 9], 'A', true)).toEqual({
      status: 'True',
      reason: 'Bound',
      message: 'the data partition unlocks automatically with the boot chain of slot A (PCRs 7, 8, 9)',
    });
    expect(boundCondition({ slots: ['A', 'B'] }, [7], 'A', true)).toMatchObject({
      reason: 'Widened',
      message: 'the data partition unlocks automatically with the boot chains of slots A and B (PCR 7)',
    });
    expect(boundCondition({ slots: ['A'] }, [7, 8, 9], 'B', false)).toMatchObject({
      status: 'False',
      reason: 'NotUnlocked',
      message: expect.stringContaining('did not unlock the data partition at this boot of slot B') as unknown,
    });
  });
});
