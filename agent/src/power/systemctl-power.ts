import { execa } from 'execa';
import type { Power } from './power.js';

/** A real device: systemd stops every service (running the on-shutdown hook unit) and reboots. */
export function systemctlPower(systemctl = 'systemctl'): Power {
  return {
    async reboot() {
      await execa(systemctl, ['reboot']);
    },
    async poweroff() {
      await execa(systemctl, ['poweroff']);
    },
  };
}
