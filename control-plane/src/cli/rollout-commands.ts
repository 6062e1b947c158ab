import {
  DEFAULT_WAVES,
  parseFailureBudget,
  parseRolloutDuration,
  parseWaveNames,
  rolloutApiOf,
  runRollout,
  statusFilters,
  STATUS_COUNTS,
  waveFilter,
} from '@outpost/shared';
import type { FailureBudget, RolloutOutcome, StatusCount, WavePreflight } from '@outpost/shared';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { CliContext, ContextFactory } from './context.js';
import { ExitStatus } from './exit-status.js';
import { confirmOnTerminal } from './power-commands.js';
import { rolloutView } from './rollout-view.js';

/** Exit status of a rollout that halted (failures, a health regression, a wave timeout). */
export const EXIT_HALTED = 3;
/** Exit status of a rollout stopped by Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

interface RolloutOptions {
  parent: string;
  version: string;
  filter?: string;
  waves: string[];
  maxFailures?: FailureBudget;
  soak: number;
  waveTimeout?: number;
  dryRun?: boolean;
  yes?: boolean;
}

/** A commander option parser from a parser that throws an Error saying what is wrong. */
const parsed =
  <T>(parse: (text: string) => T) =>
  (text: string): T => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };

/** `outpost devices rollout` and `outpost devices rollout-status` (issue 17). */
export function registerRolloutCommands(group: Command, ctxFactory: ContextFactory): void {
  group
    .command('rollout')
    .description(
      'roll an OS version out wave after wave (devices labelled wave:<name>): preflight, write, follow one watch, promote or halt; re-run to resume',
    )
    .requiredOption('--parent <parent>', 'projects/{project}/regions/{region or -}')
    .requiredOption('--version <version>', 'the OS version to roll out (an earlier one rolls back)')
    .option('--filter <filter>', 'only the devices of the waves that pass this filter')
    .option('--waves <list>', 'the waves in order', parsed(parseWaveNames), [...DEFAULT_WAVES])
    .option(
      '--max-failures <N|P%>',
      'failed devices a wave tolerates (default: none in the first wave, 10% in later ones)',
      parsed(parseFailureBudget),
    )
    .option(
      '--soak <duration>',
      'how long devices must stay healthy on the version before the next wave (60s, 10m, 1h)',
      parsed(parseRolloutDuration),
      0,
    )
    .option(
      '--wave-timeout <duration>',
      'halt when a wave has not completed this long after it started',
      parsed(parseRolloutDuration),
    )
    .option('--dry-run', 'print the preflight of every wave and write nothing')
    .option('--yes', 'do not ask for confirmation after the preflight')
    .action(async (opts: RolloutOptions, command: Command) => {
      const ctx = ctxFactory(command);
      const view = rolloutView(ctx);
      const interrupt = new AbortController();
      const onSigint = (): void => interrupt.abort();
      process.once('SIGINT', onSigint);
      let outcome: RolloutOutcome;
      try {
        outcome = await runRollout(rolloutApiOf(ctx.client), {
          parent: opts.parent,
          version: opts.version,
          ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
          waves: opts.waves,
          ...(opts.maxFailures !== undefined ? { budget: opts.maxFailures } : {}),
          soakMs: opts.soak,
          ...(opts.waveTimeout !== undefined ? { waveTimeoutMs: opts.waveTimeout } : {}),
          dryRun: opts.dryRun === true,
          ...(opts.yes === true || opts.dryRun === true
            ? {}
            : { confirm: (preflight) => confirm(ctx, preflight, opts.version) }),
          onEvent: (event) => view.show(event),
          signal: interrupt.signal,
        });
      } finally {
        view.close();
        process.removeListener('SIGINT', onSigint);
      }
      switch (outcome.kind) {
        case 'halted':
          throw new ExitStatus(EXIT_HALTED, `rollout halted in wave ${outcome.wave}: ${outcome.reason}`);
        case 'interrupted':
          throw new ExitStatus(
            EXIT_INTERRUPTED,
            'interrupted: what was written stays written; run the same command again to go on',
          );
        case 'declined':
          throw new Error('aborted: nothing was written');
        default:
          return;
      }
    });

  group
    .command('rollout-status')
    .description(
      'how far a version has rolled out: not yet targeted, in flight and done (spec 000 Endpoints rule 4), with the in-flight devices that failed, are offline or pending',
    )
    .requiredOption('--parent <parent>', 'projects/{project}/regions/{region or -}')
    .requiredOption('--version <version>', 'the OS version')
    .option('--filter <filter>', 'restrict to these devices, e.g. \'metadata.labels CONTAINS "wave:canary"\'')
    .option('--waves <list>', 'one row per wave (devices labelled wave:<name>)', parsed(parseWaveNames))
    .action(async (opts: { parent: string; version: string; filter?: string; waves?: string[] }, command: Command) => {
      const ctx = ctxFactory(command);
      const scopes = opts.waves?.map((wave) => ({ wave, filter: waveFilter(wave) })) ?? [{ filter: undefined }];
      const rows = await Promise.all(
        scopes.map(async (scope) => ({
          ...('wave' in scope ? { wave: scope.wave } : {}),
          version: opts.version,
          ...(await statusCounts(ctx, opts.parent, opts.version, [opts.filter, scope.filter])),
        })),
      );
      const columns = [
        ...(opts.waves ? [{ header: 'WAVE', path: 'wave' }] : []),
        { header: 'VERSION', path: 'version' },
        { header: 'NOT TARGETED', path: 'notTargeted' },
        { header: 'IN FLIGHT', path: 'inFlight' },
        { header: 'DONE', path: 'done' },
        { header: 'FAILED', path: 'failed' },
        { header: 'OFFLINE', path: 'offline' },
        { header: 'PENDING', path: 'pending' },
      ];
      if (opts.waves) ctx.output(rows, columns);
      else ctx.output(rows[0], columns);
    });
}

/** The counts of statusFilters, each counted by the server within the given filters. */
async function statusCounts(
  ctx: CliContext,
  parent: string,
  version: string,
  within: readonly (string | undefined)[],
): Promise<Record<StatusCount, number>> {
  const scope = within.filter((f): f is string => f !== undefined && f.trim() !== '').map((f) => `(${f})`);
  const filters = statusFilters(version);
  const counts = await Promise.all(
    STATUS_COUNTS.map(async (count) => {
      const page = await ctx.client.list(parent, 'devices', {
        filter: [...scope, filters[count]].join(' AND '),
        pageSize: 1,
        view: 'NAME',
        includePagingInfo: true,
      });
      return [count, page.totalResultsCount ?? 0] as const;
    }),
  );
  return Object.fromEntries(counts) as Record<StatusCount, number>;
}

async function confirm(ctx: CliContext, preflight: readonly WavePreflight[], version: string): Promise<boolean> {
  const devices = preflight.reduce((sum, w) => sum + w.toWrite, 0);
  const confirmed = await confirmOnTerminal(
    `warning: this writes spec.osVersion=${version} to ${devices} device(s), wave after wave.`,
    'Type yes to start the rollout: ',
    '--yes',
  );
  if (!confirmed) ctx.note('not confirmed');
  return confirmed;
}
