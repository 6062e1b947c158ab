import { readFileSync, readdirSync } from 'node:fs';

/**
 * `read(pid)` of each process running exactly `argv` (its /proc/PID/cmdline); a process that ends meanwhile is
 * skipped. The simulated devices' processes run on this machine, so a test finds them here.
 */
export function ofProcessesRunning<T>(argv: readonly string[], read: (pid: string) => T): T[] {
  const wanted = `${argv.join('\0')}\0`;
  const results: T[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted) results.push(read(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return results;
}

/** The pids of the processes running exactly `argv`. */
export const processesRunning = (argv: readonly string[]): string[] => ofProcessesRunning(argv, (pid) => pid);

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses): state, ppid, ... */
export function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * Whether a process running exactly `argv` is in its terminal's foreground process group: the group a Ctrl-Z or a
 * Ctrl-C typed on that terminal signals. A shell hands the terminal over around fork, exec and `fg` in an order of
 * its own, so a signal key is typed only once this holds.
 */
export const inForeground = (argv: readonly string[]): boolean =>
  ofProcessesRunning(argv, (pid) => {
    const [, , pgrp, , , tpgid] = statFields(pid);
    return pgrp !== undefined && pgrp === tpgid;
  }).includes(true);
