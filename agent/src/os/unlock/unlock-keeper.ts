import { rm } from 'node:fs/promises';
import { pathExists } from '@outpost/shared';
import type { ReportedStatus, Slot } from '@outpost/shared';
import type { Logger } from '../../logging/logger.js';
import type { ConditionUpdate } from '../../metrics/conditions.js';
import type { OsOperation } from '../os-progress.js';
import type { DiskUnlockAdapter, UnlockBinding } from './unlock-adapter.js';
import { boundCondition, planSwitchUnlock, planUnlock } from './unlock-planner.js';
import type { DiskUnlockCondition, UnlockBootView, UnlockStep } from './unlock-planner.js';

/** The recovery key's file name in {device_root}/config/, where provisioning leaves it for the agent to enrol. */
export const RECOVERY_KEY_FILE_NAME = 'recovery-key';

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
  /**
   * {device_root}/config/recovery-key: the recovery key `outpost devices provision --encrypted` left for the
   * agent to enrol as a second key slot; removed once enrolled (the operator holds the only other copy)
   */
  recoveryKeyFile?: string;
}

/** Carries out the unlock planner's decisions and reports the DiskUnlock condition and status.diskUnlock. */
export class DiskUnlockKeeper implements DiskUnlockGuard {
  /** the pending recovery key is looked for once per start (enrolling needs a boot the TPM unlocked) */
  private recoveryKeyChecked = false;

  constructor(private readonly options: DiskUnlockKeeperOptions) {}

  async reconcile(boot: UnlockBootView, operation: OsOperation | undefined): Promise<void> {
    if (!this.recoveryKeyChecked) {
      this.recoveryKeyChecked = true;
      await this.enrollPendingRecoveryKey();
    }
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

  private async enrollPendingRecoveryKey(): Promise<void> {
    const file = this.options.recoveryKeyFile;
    if (file === undefined || !(await pathExists(file))) return;
    try {
      const keyslot = await this.options.adapter.addRecoveryKey(file);
      await rm(file, { force: true });
      this.options.logger.info({ keyslot }, 'enrolled the recovery key made at provisioning; removed its copy');
    } catch (err) {
      this.options.logger.error({ err }, `cannot enrol the recovery key of ${file} (kept; retried at the next start)`);
    }
  }

  private setCondition(condition: DiskUnlockCondition): void {
    this.options.reporter.setCondition({ type: 'DiskUnlock', ...condition });
  }
}
