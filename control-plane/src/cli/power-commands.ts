import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { maintenanceStatusSchema } from '@outpost/shared';
import type { ContextFactory } from './context.js';
import { UsageError } from './usage-error.js';

/**
 * Asks on the terminal and resolves true only for the answer `yes`. Without a terminal nothing can be asked:
 * a usage error (the caller must pass --force).
 */
export async function confirmOnTerminal(warning: string, question: string, force: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new UsageError(`no terminal to confirm on: pass ${force} to go ahead without confirmation`);
  }
  process.stderr.write(`${warning}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.once('close', () => resolve(undefined));
      rl.question(question, resolve);
    });
    return answer?.trim() === 'yes';
  } finally {
    rl.close();
  }
}

interface PowerAction {
  /** the command and the API method */
  verb: 'reboot' | 'shutdown';
  /** what the action does to a device, in words */
  does: string;
  effect: string;
  /** the question that asks for "yes" */
  question: string;
}

const POWER_ACTIONS: readonly PowerAction[] = [
  {
    verb: 'reboot',
    does: 'reboot',
    effect: 'it goes offline and its workloads stop until it is back',
    question: 'Type yes to reboot it: ',
  },
  {
    verb: 'shutdown',
    does: 'shut down',
    effect: 'it stays offline until someone powers it on again',
    question: 'Type yes to shut it down: ',
  },
];

/**
 * What the device last reported of its maintenance window and update locks, as notes for the prompt: a closed
 * window (a reboot asked for is not held back by it, but workloads may not expect one), held locks (the device
 * refuses a reboot without --ignore-locks or --force).
 */
export function maintenanceNotes(device: unknown): string[] {
  const status = isObject(device) && isObject(device['status']) ? device['status'] : undefined;
  const parsed = maintenanceStatusSchema.safeParse(status?.['maintenance']);
  if (!parsed.success) return [];
  const maintenance = parsed.data;
  const notes: string[] = [];
  if (maintenance.windows > 0 && !maintenance.windowOpen) {
    const next = maintenance.nextWindowStart === undefined ? '' : ` (the next opens at ${maintenance.nextWindowStart})`;
    notes.push(`note: its maintenance window is closed${next}.`);
  }
  if (maintenance.heldLocks.length > 0) {
    const locks = maintenance.heldLocks.map((lock) => `${lock.name} (until ${lock.expiresAt})`).join(', ');
    notes.push(`note: update locks are held: ${locks}; the device refuses a reboot without --ignore-locks.`);
  }
  return notes;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `outpost devices reboot|shutdown <device_name> [--force] [--ignore-locks]` (spec 000 "Command-line operations"). */
export function registerPowerCommands(group: Command, ctxFactory: ContextFactory): void {
  for (const { verb, does, effect, question } of POWER_ACTIONS) {
    const command = group
      .command(`${verb} <device_name>`)
      .description(`${does} a device through its own connection; asks for "yes" unless --force`)
      .option(
        '--force',
        verb === 'reboot'
          ? 'do not ask for confirmation, and reboot although update locks are held'
          : 'do not ask for confirmation',
      );
    if (verb === 'reboot') command.option('--ignore-locks', 'reboot although update locks are held on the device');
    command.action(async (deviceName: string, opts: { force?: boolean; ignoreLocks?: boolean }, cmd: Command) => {
      const ctx = ctxFactory(cmd);
      if (opts.force !== true) {
        // only where there is a terminal to ask on: without one, confirmOnTerminal refuses at once
        const notes =
          verb === 'reboot' && process.stdin.isTTY
            ? maintenanceNotes(await ctx.client.request<unknown>('GET', `/v1/${deviceName}`))
            : [];
        const confirmed = await confirmOnTerminal(
          [`warning: this will ${does} ${deviceName}: ${effect}.`, ...notes].join('\n'),
          question,
          '--force',
        );
        if (!confirmed) throw new Error(`aborted: ${deviceName} was not sent anything`);
      }
      const body =
        verb !== 'reboot'
          ? {}
          : {
              ...(opts.force === true ? { force: true } : {}),
              ...(opts.ignoreLocks === true ? { ignoreLocks: true } : {}),
            };
      const answer = await ctx.client.request<Record<string, unknown>>('POST', `/v1/${deviceName}:${verb}`, {
        body,
      });
      if (ctx.format === 'table') ctx.print(`${verb} of ${deviceName} requested`);
      else ctx.output(answer);
    });
  }
}
