import { rm } from 'node:fs/promises';
import type { Power } from './power.js';

export type SimulatedPowerEvent = 'reboot' | 'poweroff';

/**
 * The simulated device of the file boot backend. Its volatile state ("RAM", `{device_root}/sim-run/`)
 * is lost first, exactly as a real reboot loses it; then `onPowerEvent` tells the composition root to
 * tear the agent down and boot again in the same process (reboot) or to exit (power-off).
 */
export function simulatedPower(volatileDir: string, onPowerEvent: (event: SimulatedPowerEvent) => void): Power {
  const act = async (event: SimulatedPowerEvent): Promise<void> => {
    await rm(volatileDir, { recursive: true, force: true });
    onPowerEvent(event);
  };
  return { reboot: () => act('reboot'), poweroff: () => act('poweroff') };
}
