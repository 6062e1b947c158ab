import { readFile } from 'node:fs/promises';

/** What /proc/<pid>/stat tells about a process that matters to re-adopting it. */
export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie: it has ended, only its parent has not reaped it yet), ... */
  state: string;
  ppid: number;
  pgrp: number;
  /** clock ticks since boot when it started: with the pid, names one process of this boot (pids are reused) */
  startTime: string;
}

/**
 * Parses the line of /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself hold spaces
 * and parentheses, so the fields are counted from the last `)`.
 */
export function parseProcStat(line: string): ProcStat | undefined {
  const open = line.indexOf(' (');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(line.slice(0, open));
  const fields = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state); starttime is field 22
  const [state, ppid, pgrp] = [fields[0], Number(fields[1]), Number(fields[2])];
  const startTime = fields[19];
  if (!Number.isInteger(pid) || state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) {
    return undefined;
  }
  if (!Number.isInteger(ppid) || !Number.isInteger(pgrp)) return undefined;
  return { pid, state, ppid, pgrp, startTime };
}

/** The process's stat, or undefined when there is no such process (or no /proc). */
export async function readProcStat(pid: number, procDir = '/proc'): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(await readFile(`${procDir}/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether the process that started at `startTime` with this pid is still running (not gone, not a zombie). */
export async function stillRunning(pid: number, startTime: string, procDir = '/proc'): Promise<boolean> {
  const stat = await readProcStat(pid, procDir);
  return stat !== undefined && stat.startTime === startTime && stat.state !== 'Z' && stat.state !== 'X';
}
