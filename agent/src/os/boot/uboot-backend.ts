import type { Slot } from '@outpost/shared';
import { slotOf } from './boot-backend.js';
import type { BootBackend, BootState } from './boot-backend.js';
import { PARTLABEL_SLOTS } from './grubenv-backend.js';
import { readKernelCmdline } from './kernel-cmdline.js';
import { KERNEL_CMDLINE_FILE, OS_VERSION_FILE, kernelBootTimeMs, readFirstLine } from './running-root.js';
import { partitionSlotTarget } from './slot-target.js';
import { readUbootEnv, writeUbootEnv } from './uboot-env.js';
import type { UbootEnvTools } from './uboot-env.js';

export interface UbootBackendOptions extends UbootEnvTools {
  /** default /proc/cmdline */
  cmdlineFile?: string;
  /** default /etc/outpost/os-version */
  osVersionFile?: string;
  /** default /dev/disk/by-partlabel/root_a|root_b */
  slotPaths?: Readonly<Record<Slot, string>>;
  bootId: () => Promise<string>;
  bootTimeMs?: () => number;
}

/** The U-Boot scheme of boot-backend.ts (bootcount / upgrade_available / boot_part). */
export function ubootBackend(options: UbootBackendOptions): BootBackend {
  const slotPaths = options.slotPaths ?? PARTLABEL_SLOTS;
  const activeOf = (env: Record<string, string>): Slot => slotOf(env['active_slot']) ?? slotOf(env['boot_part']) ?? 'A';

  return {
    name: 'uboot',
    async readState(): Promise<BootState> {
      const [env, cmdline, bootId] = await Promise.all([
        readUbootEnv(options),
        readKernelCmdline(options.cmdlineFile ?? KERNEL_CMDLINE_FILE),
        options.bootId(),
      ]);
      const activeSlot = activeOf(env);
      const upgrading = env['upgrade_available'] === '1';
      const bootPart = slotOf(env['boot_part']) ?? activeSlot;
      // Before the trial's first boot, boot_part already names the trial slot but the active one runs.
      const notBootedYet = upgrading && Number(env['bootcount'] ?? '0') === 0;
      const state: BootState = {
        bootId,
        bootTimeMs: (options.bootTimeMs ?? kernelBootTimeMs)(),
        runningSlot: slotOf(cmdline.get('ab.slot')) ?? (notBootedYet ? activeSlot : bootPart),
        activeSlot,
        env,
      };
      if (upgrading && bootPart !== activeSlot) state.trySlot = bootPart;
      const lastFailed = slotOf(env['last_failed']);
      if (lastFailed !== undefined) state.lastFailed = lastFailed;
      return state;
    },
    runningVersion: () => readFirstLine(options.osVersionFile ?? OS_VERSION_FILE),
    async resetTry() {
      const activeSlot = activeOf(await readUbootEnv(options));
      await writeUbootEnv(options, {
        active_slot: activeSlot,
        boot_part: activeSlot,
        upgrade_available: '0',
        bootcount: '0',
        last_failed: '',
      });
    },
    async tryOnce(slot) {
      // active_slot is written too: a factory environment may only have boot_part
      const activeSlot = activeOf(await readUbootEnv(options));
      await writeUbootEnv(options, {
        active_slot: activeSlot,
        boot_part: slot,
        upgrade_available: '1',
        bootcount: '0',
        last_failed: '',
      });
    },
    commit: (slot) =>
      writeUbootEnv(options, { active_slot: slot, boot_part: slot, upgrade_available: '0', bootcount: '0' }),
    slotTarget: (slot) => partitionSlotTarget(slot, slotPaths[slot]),
    async setSlotVersion() {
      // the image's root carries its version (/etc/outpost/os-version)
    },
  };
}
