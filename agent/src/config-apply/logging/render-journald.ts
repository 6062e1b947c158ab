import type { LoggingConfig } from './desired-logging.js';

/** The journald drop-in Outpost owns. */
export const JOURNALD_DROP_IN = '/etc/systemd/journald.conf.d/90-outpost.conf';

/**
 * The journald drop-in for `config`, or undefined when it sets nothing journald reads: `priority` (syslog 0-7) is
 * the lowest-priority level journald stores (MaxLevelStore=), the sizes are SystemMaxUse= and RuntimeMaxUse=.
 */
export function renderJournaldDropIn(config: LoggingConfig | undefined): string | undefined {
  const lines: string[] = [];
  if (config?.priority !== undefined) lines.push(`MaxLevelStore=${config.priority}`);
  if (config?.journalSystemMaxUse !== undefined) lines.push(`SystemMaxUse=${config.journalSystemMaxUse}`);
  if (config?.journalRuntimeMaxUse !== undefined) lines.push(`RuntimeMaxUse=${config.journalRuntimeMaxUse}`);
  if (lines.length === 0) return undefined;
  return (
    "# Written by droplet (Outpost) from the device's spec.loggingConfig: changes made here are overwritten.\n" +
    '[Journal]\n' +
    lines.map((line) => `${line}\n`).join('')
  );
}
