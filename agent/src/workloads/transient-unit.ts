import { readFile, stat } from 'node:fs/promises';
import type { DetachedLaunch, WrapperStarter } from './detached-service.js';

/**
 * `outpost-<project>.<region>.<pod>-<service>.service`: the transient unit a service runs in where systemd manages
 * the device, so that it lives outside droplet.service's cgroup (a restart of the agent kills that whole cgroup).
 * Pod and service names are [a-z0-9-]: nothing to escape.
 */
export function transientUnitName(pod: string, service: string): string {
  const parts = pod.split('/');
  const podId = [parts[1], parts[3], parts[5]].filter((p) => p !== undefined).join('.');
  return `outpost-${podId}-${service}.service`;
}

/** The `systemd-run` arguments that start the wrapper (argv) as that unit, as the launch's user, on its log file. */
export function systemdRunArgs(unit: string, launch: DetachedLaunch, argv: readonly string[]): string[] {
  const args = [
    `--unit=${unit}`,
    '--collect',
    '--quiet',
    '--property=StandardInput=null',
    `--property=StandardOutput=append:${launch.logFile}`,
    `--property=StandardError=append:${launch.logFile}`,
    `--working-directory=${launch.cwd}`,
  ];
  if (launch.uid !== undefined) args.push(`--uid=${launch.uid}`);
  if (launch.gid !== undefined) args.push(`--gid=${launch.gid}`);
  for (const [name, value] of Object.entries(launch.env))
    if (value !== undefined) args.push(`--setenv=${name}=${value}`);
  args.push('--', ...argv);
  return args;
}

/** Whether services can run as transient units: systemd is PID 1 and the agent is root (it may create units). */
export async function systemdManagesServices(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  const init = await readFile('/proc/1/comm', 'utf8').catch(() => '');
  const booted = await stat('/run/systemd/system').then(
    (info) => info.isDirectory(),
    () => false,
  );
  return init.trim() === 'systemd' && booted;
}

/** Starts the wrapper as the transient unit of the launch's service; answers the unit's main pid (the wrapper). */
export function transientUnitStarter(unit: string): WrapperStarter {
  return async (launch, argv) => {
    const { execa } = await import('execa');
    // a unit of the same name left by a service that ended or was replaced would make systemd-run fail
    await execa('systemctl', ['stop', unit], { reject: false, timeout: 30_000 });
    await execa('systemctl', ['reset-failed', unit], { reject: false, timeout: 10_000 });
    const run = await execa('systemd-run', systemdRunArgs(unit, launch, argv), { reject: false, timeout: 30_000 });
    if (run.failed) throw new Error(`systemd-run could not start ${unit}: ${run.stderr || run.shortMessage}`);
    const shown = await execa('systemctl', ['show', '--property=MainPID', '--value', unit], { timeout: 10_000 });
    const pid = Number(shown.stdout.trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${unit} has no main process (it ended at once)`);
    return { pid };
  };
}
