import { createInterface } from 'node:readline';
import type { Command } from 'commander';
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

/** `outpost devices reboot|shutdown <device_name> [--force]` (spec 000 "Command-line operations"). */
export function registerPowerCommands(group: Command, ctxFactory: ContextFactory): void {
  for (const { verb, does, effect, question } of POWER_ACTIONS) {
    group
      .command(`${verb} <device_name>`)
      .description(`${does} a device through its own connection; asks for "yes" unless --force`)
      .option('--force', 'do not ask for confirmation')
      .action(async (deviceName: string, opts: { force?: boolean }, command: Command) => {
        const ctx = ctxFactory(command);
        if (opts.force !== true) {
          const confirmed = await confirmOnTerminal(
            `warning: this will ${does} ${deviceName}: ${effect}.`,
            question,
            '--force',
          );
          if (!confirmed) throw new Error(`aborted: ${deviceName} was not sent anything`);
        }
        const answer = await ctx.client.request<Record<string, unknown>>('POST', `/v1/${deviceName}:${verb}`, {
          body: {},
        });
        if (ctx.format === 'table') ctx.print(`${verb} of ${deviceName} requested`);
        else ctx.output(answer);
      });
  }
}
