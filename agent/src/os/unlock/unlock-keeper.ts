import type { ReportedStatus, Slot } from '@outpost/shared';
import type { Logger } from '../../logging/logger.js';
import type { ConditionUpdate } from '../../metrics/conditions.js';
import type { OsOperation } from '../os-progress.js';
import type { DiskUnlockAdapter, UnlockBinding } from './unlock-adapter.js';
import { boundCondition, planSwitchUnlock, planUnlock } from './unlock-planner.js';
import type { DiskUnlockCondition, UnlockBootView, UnlockStep } from './unlock-planner.js';

/** What the OS updater asks of the unlock binding (absent: the data partition is not encrypted). */
export interface DiskUnlockGuard {
  /** brings the policy to what this boot state needs (narrows after a commit or rollback); never throws */
  reconcile(boot: UnlockBootView, operation: OsOperation | undefined): Promise<void>;
  /** makes the policy accept the trial slot's chain before a switch; the reason when it cannot (switch refused) */
  prepareSwitch(boot: UnlockBootView, trial: Slot): Promise<string | undefined>;
}

export interface DiskUnlockKeeperOptions {
  adapter: DiskUnlockAdapter;
  reporter: {
    report(partial: ReportedStatus): void;
    setCondition(update: ConditionUpdate): void;
  };
  logger: Logger;
}

/** Carries out the unlock planner's decisions and reports the DiskUnlock condition and status.diskUnlock. */
export class DiskUnlockKeeper implements DiskUnlockGuard {
  constructor(private readonly options: DiskUnlockKeeperOptions) {}

  async reconcile(boot: UnlockBootView, operation: OsOperation | undefined): Promise<void> {
    try {
      const binding = await this.options.adapter.readBinding();
      await this.apply(binding, boot, planUnlock(binding, boot, operation));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.options.logger.error({ err }, 'cannot bring the TPM unlock policy up to date');
      this.setCondition({
        status: 'False',
        reason: 'Failed',
        message: `cannot update the TPM unlock policy: ${message}`,
      });
    }
  }

  async prepareSwitch(boot: UnlockBootView, trial: Slot): Promise<string | undefined> {
    try {
      const binding = await this.options.adapter.readBinding();
      await this.apply(binding, boot, planSwitchUnlock(binding, boot, trial));
      return undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason = `the TPM cannot be prepared to unlock the data partition with slot ${trial}: ${message}`;
      this.options.logger.error({ err, slot: trial }, reason);
      this.setCondition({ status: 'False', reason: 'Failed', message: reason });
      return reason;
    }
  }

  private async apply(binding: UnlockBinding, boot: UnlockBootView, step: UnlockStep): Promise<void> {
    const { adapter, logger } = this.options;
    const unlocked = await adapter.unlockedThisBoot();
    let current = binding;
    if (step.kind === 'seal') {
      current = await adapter.seal(step.slots, step.reason);
      logger.info({ slots: current.slots, reason: step.reason }, 'sealed the TPM unlock policy');
    }
    this.options.reporter.report({
      diskUnlock: {
        adapter: adapter.kind,
        boundPcrs: [...adapter.boundPcrs],
        slotsAccepted: current.slots,
        unlockedThisBoot: unlocked,
        ...(current.changedAtMs === undefined
          ? {}
          : { lastChange: { time: new Date(current.changedAtMs).toISOString(), reason: current.reason ?? '' } }),
      },
    });
    this.setCondition(boundCondition(current, adapter.boundPcrs, boot.runningSlot, unlocked));
  }

  private setCondition(condition: DiskUnlockCondition): void {
    this.options.reporter.setCondition({ type: 'DiskUnlock', ...condition });
  }
}
