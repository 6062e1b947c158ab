import type { Slot } from '@outpost/shared';

/** How one boot (one QEMU process) ended. */
export type BootExit =
  /** the guest rebooted (`reboot: Restarting system`); -no-reboot made QEMU exit */
  | 'reboot'
  /** the guest powered off (`reboot: Power down`) */
  | 'power-off'
  /** the kernel panicked (and, with panic=5, rebooted) */
  | 'kernel-panic'
  /** the harness killed QEMU: a power cut */
  | 'power-cut'
  /** QEMU exited on its own for another reason (bad arguments, crash) */
  | 'qemu-error';

/** What the serial console of one boot says. */
export interface SerialFacts {
  /** the slot GRUB booted and the trial number (`AB: booting slot B (trial=1)`) */
  slot?: Slot;
  trial?: number;
  /** GRUB gave up on this slot this boot (`AB: slot B was not committed after 1 tries, falling back to A`) */
  fellBackFrom?: Slot;
  /** systemd started droplet.service, or the agent says it started */
  dropletStarted: boolean;
}

export function serialFacts(log: string): SerialFacts {
  // systemd prints `Started droplet.service` only after its ExecStartPre= (droplet restore-config) ends, and its
  // status lines stop once the serial getty has the console: the agent's own start record counts as well
  const dropletStarted =
    /Started .*droplet\.service/.test(log) || agentLogRecords(log).some((record) => record.msg === 'droplet started');
  const facts: SerialFacts = { dropletStarted };
  const booting = /AB: booting slot ([AB]) \(trial=(\d+)\)/.exec(log);
  if (booting) {
    facts.slot = booting[1] as Slot;
    facts.trial = Number(booting[2]);
  }
  const fallback = /AB: slot ([AB]) was not committed after \d+ tries, falling back to [AB]/.exec(log);
  if (fallback) facts.fellBackFrom = fallback[1] as Slot;
  return facts;
}

/** Why QEMU exited, from the boot's serial log (`killed`: the harness killed it). */
export function exitOf(log: string, killed: boolean): BootExit {
  if (killed) return 'power-cut';
  if (/Kernel panic - not syncing/.test(log)) return 'kernel-panic';
  if (/reboot: Restarting system/.test(log)) return 'reboot';
  if (/reboot: Power down/.test(log)) return 'power-off';
  return 'qemu-error';
}

/** The last `count` lines of a log, control characters other than newlines and tabs removed. */
export function tailLines(text: string, count: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
  return clean.split('\n').slice(-count).join('\n');
}

/** One of droplet's log records (pino JSON) as it appeared on the serial console; `time` is the guest's clock (ms). */
export interface AgentLogRecord {
  time: number;
  msg: string;
  [field: string]: unknown;
}

/** droplet's JSON log lines on a serial console (systemd's and the kernel's lines around them are skipped). */
export function agentLogRecords(log: string): AgentLogRecord[] {
  const records: AgentLogRecord[] = [];
  for (const line of log.split('\n')) {
    const start = line.indexOf('{"level":');
    const end = line.lastIndexOf('}');
    if (start < 0 || end < start) continue;
    try {
      const record: unknown = JSON.parse(line.slice(start, end + 1));
      if (isAgentLogRecord(record)) records.push(record);
    } catch {
      // a line the console cut or mixed with another
    }
  }
  return records;
}

function isAgentLogRecord(value: unknown): value is AgentLogRecord {
  if (typeof value !== 'object' || value === null) return false;
  const { time, msg } = value as Record<string, unknown>;
  return typeof time === 'number' && typeof msg === 'string';
}
