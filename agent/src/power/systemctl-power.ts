import type { Power } from './power.js';

/** A real device: systemd stops every service (running the on-shutdown hook unit) and reboots. */
export function systemctlPower(systemctl = 'systemctl'): Power {
  return {
    async reboot() {
      // loaded on first use: execa costs memory the idle agent does not need
      const { execa } = await import('execa');
      await execa(systemctl, ['reboot']);
    },
    async poweroff() {
      const { execa } = await import('execa');
      await execa(systemctl, ['poweroff']);
    },
  };
}
