import { Command, InvalidArgumentError, Option } from 'commander';
import { describeLocks, heldAt } from './lock-lease.js';
import { UpdateLocks, locksDir } from './update-locks.js';

/** Where the command writes: its output and its errors (the process's in use). */
export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

const processOutput: CommandOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

const deviceRootOption = (): Option =>
  new Option('--device-root <dir>', 'persistent root of the device (config/ and data/)')
    .default('/outpost')
    .env('DROPLET_DEVICE_ROOT');

const TTL_UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `10m`, `2h` in milliseconds. */
function ttlOf(text: string): number {
  const match = /^(\d{1,7})([smh])$/.exec(text.trim());
  if (match === null) throw new InvalidArgumentError(`"${text}" is not a duration such as 30s, 10m or 1h`);
  return Number(match[1]) * (TTL_UNIT_MS[match[2] ?? ''] ?? Number.NaN);
}

/**
 * `droplet lock acquire <name> --ttl 10m | release <name> | list [--device-root D]`: update locks a workload
 * holds to defer an upgrade's slot switch and reboot. Each is a lease: it ends at its expiry even if never
 * released. Returns the exit code (0; 1 on failure; 2 on a usage error).
 */
export async function lockCommand(argv: readonly string[], output: CommandOutput = processOutput): Promise<number> {
  let exitCode = 0;
  const program = new Command('droplet lock')
    .description('update locks: defer OS upgrade slot switches and reboots while held (each lock is a lease)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => output.out(text.trimEnd()),
      writeErr: (text) => output.err(text.trimEnd()),
    });
  program
    .command('acquire <name>')
    .description('take or renew the lock <name> until now + --ttl')
    .requiredOption('--ttl <duration>', 'how long the lease lasts (e.g. 10m; at most 24h)', ttlOf)
    .addOption(deviceRootOption())
    .action(async (name: string, opts: { ttl: number; deviceRoot: string }) => {
      const lock = await new UpdateLocks(locksDir(opts.deviceRoot)).acquire(name, opts.ttl);
      output.out(`acquired update lock ${lock.name} until ${new Date(lock.expiresAtMs).toISOString()}`);
    });
  program
    .command('release <name>')
    .description('drop the lock <name>')
    .addOption(deviceRootOption())
    .action(async (name: string, opts: { deviceRoot: string }) => {
      const released = await new UpdateLocks(locksDir(opts.deviceRoot)).release(name);
      output.out(released ? `released update lock ${name}` : `update lock ${name} was not held`);
    });
  program
    .command('list')
    .description('the locks held now, soonest expiry first')
    .addOption(deviceRootOption())
    .action(async (opts: { deviceRoot: string }) => {
      const held = heldAt(await new UpdateLocks(locksDir(opts.deviceRoot)).list(), Date.now());
      output.out(held.length === 0 ? 'no update locks are held' : describeLocks(held));
    });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const code = (err as { exitCode?: unknown }).exitCode;
    if (typeof code === 'number') return code === 0 ? 0 : 2;
    output.err(`droplet lock: ${err instanceof Error ? err.message : String(err)}`);
    exitCode = 1;
  }
  return exitCode;
}
