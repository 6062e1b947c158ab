import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** How many file descriptors this process holds now (Linux /proc); undefined where that cannot be read. */
export function openFileDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

const clockTicksPerSecond = (): number =>
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
let clockTicks: number | undefined;

/** CPU seconds (user + system) another process has used so far (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  clockTicks ??= clockTicksPerSecond();
  // fields after the command name, which is in parentheses and may hold spaces; utime and stime are 14th and 15th
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** A memory figure of another process from /proc/<pid>/status (VmRSS now, VmHWM its peak so far), in bytes. */
export function statusBytesOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** A free TCP port on 127.0.0.1 (for a child process that must be told its port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The first line `child` prints on its stdout (spawned with stdout 'pipe'); fails when it exits before one. */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`${child.spawnfile} ended before it printed a line`)));
  });
}
