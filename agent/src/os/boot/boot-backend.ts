import type { Slot } from '@outpost/shared';
import type { SlotTarget } from './slot-target.js';

/**
 * How the agent switches A/B slots. Every backend has the same try-once semantics:
 *
 *  - `active` is the committed slot the bootloader returns to; `try` asks the bootloader to boot the other
 *    slot ONCE at the next boot (a "trial boot"); the running agent commits a trial boot (the trial slot
 *    becomes active). A trial slot that does not boot, or boots but is not committed before the next boot
 *    (crash, power cut, commit timeout), is abandoned by the bootloader, which boots `active` again and
 *    records the abandoned slot in `last_failed`.
 *  - A boot is a trial boot exactly when the running slot is not the active slot.
 *  - `resetTry` clears `try` and `last_failed` (the agent calls it before every switch, so a `last_failed`
 *    seen after the switch's reboot is about that switch).
 *
 * Backends:
 *
 *  grubenv — a real device booted by the standalone GRUB of images/ (shared/qemu.md §4). The environment
 *    block is `/boot/efi/EFI/ab/grubenv` on the ESP (exactly 1024 bytes: `# GRUB Environment Block\n`, then
 *    `key=value\n` lines, padded with `#`), rewritten in place by the agent in JS (same size, so GRUB's
 *    `save_env` keeps working) and fsynced. Variables: `active_slot` A|B, `try_slot` ''|A|B, `try_count`
 *    (tries used, incremented by GRUB before booting the trial), `max_tries` (GRUB's default 1),
 *    `last_failed` ''|A|B; others (`ab_extra_cmdline`, `ab_use_initrd`) are kept untouched.
 *    try: `try_slot=S try_count=0 last_failed=`; commit: `active_slot=S try_slot= try_count=0`.
 *    The running slot comes from `/proc/cmdline` (`ab.slot=A|B`; `ab.trial=N`, N>0 on a trial boot), the
 *    running version from `/etc/outpost/os-version` of the running root, the boot id from the kernel. Slots
 *    are `/dev/disk/by-partlabel/root_a|root_b`. The other slot's version is what the agent remembers
 *    writing there (it does not mount slots).
 *
 *  uboot — U-Boot with its environment read and written by `fw_printenv`/`fw_setenv` (libubootenv;
 *    every change is one `fw_setenv -s <script>` call, so one environment write). Variables:
 *    `active_slot` A|B (committed), `boot_part` A|B (the slot U-Boot boots next), `upgrade_available`
 *    0|1, `bootcount`, `bootlimit` (default 1), `last_failed`. The board's boot script is expected to do,
 *    Mender-style: while `upgrade_available=1`, U-Boot's boot counter increments `bootcount` at every boot
 *    and, once `bootcount > bootlimit`, runs `altbootcmd`:
 *      `setenv last_failed ${boot_part}; setenv boot_part ${active_slot}; setenv upgrade_available 0;
 *       setenv bootcount 0; saveenv; run bootcmd`
 *    and it passes `ab.slot=${boot_part}` on the kernel command line.
 *    try: `boot_part=S upgrade_available=1 bootcount=0 last_failed=`;
 *    commit: `active_slot=S boot_part=S upgrade_available=0 bootcount=0`.
 *    Running slot: `ab.slot=` of /proc/cmdline when present, otherwise derived from the environment
 *    (`boot_part`, except before the trial's first boot — `upgrade_available=1 bootcount=0` — when it is
 *    still `active_slot`). Version, boot id and slot devices as for grubenv.
 *
 *  file — a simulated device for tests and the demo fleet. Boot state `{device_root}/boot/state.json`
 *    (`activeSlot`, `trySlot`, `tryCount`, `maxTries`, `lastFailed`: the grubenv variables), slots
 *    `{device_root}/slots/A.img|B.img` (at most `--slot-size` bytes) and the version each holds in
 *    `{device_root}/slots/A.version|B.version` (written by the agent once an image is verified, removed
 *    before an image is written). A simulated bootloader with the GRUB script's try-once logic runs at
 *    each simulated boot; the boot's facts (boot id, slot, time) live in the volatile
 *    `{device_root}/sim-run/boot.json` ("RAM"). A reboot deletes `sim-run/` and restarts the agent in the
 *    same process; at start, a missing `sim-run/boot.json` means the device was (re)booted or powered on,
 *    so the simulated boot runs first; a present one means only the agent restarted.
 *    Test hooks: an image whose content starts with `OUTPOST-TEST-PANIC` never boots (the bootloader has
 *    counted the try; the next simulated boot falls back); a slot without a `.version` file never boots;
 *    a power cut is "SIGKILL the process and delete `{device_root}/sim-run/`".
 *
 *  memory — the simulated fleet's (scripts/sim-fleet): the file backend's device and bootloader held in memory
 *    (memory-backend.ts), so one process runs thousands; never chosen by the agent's own command line.
 *
 *  none — a customer's own Linux: no backend at all (OSReady=True/Unsupported, spec.osVersion ignored).
 *
 * Test hooks honoured by every backend (read by the composition root): `OUTPOST_TEST_NEVER_COMMIT=1`
 * (never commit a trial boot: the commit timeout then reboots into the fallback).
 */
export interface BootBackend {
  readonly name: 'grubenv' | 'uboot' | 'file' | 'memory';
  /** the bootloader's view of this boot and the next */
  readState(): Promise<BootState>;
  /** the OS version of the running slot, when it can be read */
  runningVersion(): Promise<string | undefined>;
  /** clears a requested try and `last_failed` (before a switch; or to abandon a trial) */
  resetTry(): Promise<void>;
  /** the next boot tries `slot` once */
  tryOnce(slot: Slot): Promise<void>;
  /** the running trial slot becomes the committed one */
  commit(slot: Slot): Promise<void>;
  /** where an image for `slot` is written */
  slotTarget(slot: Slot): SlotTarget;
  /**
   * Records the version a slot holds: undefined before its image is overwritten, the version once the new
   * image is verified. Only the file backend keeps it (a real slot's root carries its own version).
   */
  setSlotVersion(slot: Slot, version: string | undefined): Promise<void>;
}

export interface BootState {
  /** identifies this boot: the kernel's boot id (a simulated boot's own id with the file backend) */
  bootId: string;
  /** when this boot started, ms since the epoch (the commit timeout counts from it) */
  bootTimeMs: number;
  runningSlot: Slot;
  /** the committed slot the bootloader returns to; a boot is a trial boot when running ≠ active */
  activeSlot: Slot;
  /** the slot the next boot tries once, if any */
  trySlot?: Slot;
  /** the slot the bootloader last gave up on */
  lastFailed?: Slot;
  /** the raw variables, as the bootloader sees them (reported in status.osUpdate.bootEnv) */
  env: Record<string, string>;
}

export const isTrialBoot = (state: Pick<BootState, 'runningSlot' | 'activeSlot'>): boolean =>
  state.runningSlot !== state.activeSlot;

export const otherSlot = (slot: Slot): Slot => (slot === 'A' ? 'B' : 'A');

/** 'A' | 'B' from a variable's value (case-insensitive); undefined for '' or anything else. */
export function slotOf(value: string | undefined): Slot | undefined {
  const upper = value?.trim().toUpperCase();
  return upper === 'A' || upper === 'B' ? upper : undefined;
}
