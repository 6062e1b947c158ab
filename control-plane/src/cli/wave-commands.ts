import { labelsForWave, writeInBatches, PLANNED_WAVES, planWaves } from '@outpost/shared';
import type { RolloutDevice, WavePlan } from '@outpost/shared';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { CliContext, ContextFactory } from './context.js';

interface LabelWavesOptions {
  parent: string;
  filter?: string;
  canary: number;
  early: number;
  spreadBy: string[];
  seed?: string;
  relabel?: boolean;
  dryRun?: boolean;
}

/** Devices per `devices:batchUpdate` call (the API's most). */
const LABEL_BATCH_SIZE = 1000;

interface BatchUpdateAnswer {
  failures?: { name?: string; error?: { status?: string; message?: string } }[];
}

const count = (text: string): number => {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`"${text}" is not a number of devices`);
  return Number(text);
};

const percent = (text: string): number => {
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(text.trim());
  if (!match || Number(match[1]) > 100) throw new InvalidArgumentError(`"${text}" is not a percentage from 0% to 100%`);
  return Number(match[1]);
};

const keys = (text: string): string[] => {
  const list = text.split(',').map((k) => k.trim());
  if (list.some((k) => k === ''))
    throw new InvalidArgumentError(`"${text}": give label keys (or deviceType) separated by commas`);
  return list;
};

/** `outpost devices label-waves`: writes the wave labels a rollout follows (issue 17). */
export function registerWaveCommands(group: Command, ctxFactory: ContextFactory): void {
  group
    .command('label-waves')
    .description(
      'label devices wave:canary (online now), wave:early (spread across --spread-by) and wave:main; prints the plan, then writes it',
    )
    .requiredOption('--parent <parent>', 'projects/{project}/regions/{region or -}')
    .option('--filter <filter>', 'only the devices that pass this filter')
    .requiredOption('--canary <N>', 'devices in the canary, among those online now', count)
    .requiredOption('--early <P%>', 'percentage of the devices in the early wave (rounded up)', percent)
    .option('--spread-by <keys>', 'label keys (and deviceType) the canary and early waves spread across', keys, [
      'site',
      'deviceType',
    ])
    .option('--seed <seed>', 'the same seed picks the same devices (default: the parent)')
    .option('--relabel', 'place every device again, also those that carry a wave label')
    .option('--dry-run', 'print the plan and write nothing')
    .action(async (opts: LabelWavesOptions, command: Command) => {
      const ctx = ctxFactory(command);
      const devices: RolloutDevice[] = [];
      for await (const device of ctx.client.listAll<RolloutDevice>(opts.parent, 'devices', {
        ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
        fieldMask: 'metadata.labels,status.deviceInfo.deviceType,status.connectionStatus',
        pageSize: 1000,
      })) {
        devices.push(device);
      }
      const plan = planWaves(devices, {
        canary: opts.canary,
        earlyPercent: opts.early,
        spreadBy: opts.spreadBy,
        seed: opts.seed ?? opts.parent,
        relabel: opts.relabel === true,
      });
      showPlan(ctx, plan, opts);
      if (opts.dryRun === true || plan.changes.length === 0) return;
      const byName = new Map(devices.map((d) => [d.name, d]));
      const failed = await writeLabels(ctx, opts.parent, plan, byName);
      if (failed.length > 0) {
        for (const line of failed) ctx.note(line);
        throw new Error(`${failed.length} device(s) were not labelled; run the command again to finish`);
      }
      if (ctx.format === 'table') ctx.print(`labelled ${plan.changes.length} device(s)`);
    });
}

function showPlan(ctx: CliContext, plan: WavePlan, opts: LabelWavesOptions): void {
  const waves = PLANNED_WAVES.map((wave) => ({
    wave,
    devices: plan.assignments.filter((a) => a.wave === wave).length,
    changes: plan.changes.filter((c) => c.wave === wave).length,
  }));
  if (ctx.format !== 'table') {
    ctx.output({
      waves,
      spread: plan.spread,
      changes: plan.changes,
      untouched: plan.untouched,
      canaryShortBy: plan.canaryShortBy,
    });
    return;
  }
  ctx.output(waves, [
    { header: 'WAVE', path: 'wave' },
    { header: 'DEVICES', path: 'devices' },
    { header: 'TO LABEL', path: 'changes' },
  ]);
  for (const key of opts.spreadBy) {
    const rows = Object.entries(plan.spread[key] ?? {}).map(([value, n]) => ({ value, ...n }));
    ctx.output(rows, [
      { header: key.toUpperCase(), path: 'value' },
      { header: 'CANARY', path: 'canary' },
      { header: 'EARLY', path: 'early' },
      { header: 'MAIN', path: 'main' },
    ]);
  }
  if (plan.canaryShortBy > 0) {
    ctx.note(`warning: only ${opts.canary - plan.canaryShortBy} device(s) online for a canary of ${opts.canary}`);
  }
  if (plan.untouched.length > 0) {
    ctx.note(`${plan.untouched.length} device(s) keep a wave label of another wave (--relabel places them too)`);
  }
  if (opts.dryRun === true) ctx.print('dry run: nothing written');
}

/**
 * Writes each changed device's labels through `devices:batchUpdate`, LABEL_BATCH_SIZE devices a call (update mask
 * metadata.labels, on condition that they are still what was read, so a label written meanwhile is never lost);
 * answers what could not be written.
 */
async function writeLabels(
  ctx: CliContext,
  parent: string,
  plan: WavePlan,
  byName: ReadonlyMap<string, RolloutDevice>,
): Promise<string[]> {
  return writeInBatches(plan.changes, LABEL_BATCH_SIZE, async (batch) => {
    const answer = await ctx.client.request<BatchUpdateAnswer>('POST', `/v1/${parent}/devices:batchUpdate`, {
      body: {
        requests: batch.map((change) => {
          const device = byName.get(change.name)!;
          return {
            device: { name: change.name, metadata: { labels: labelsForWave(device, change.wave) } },
            updateMask: 'metadata.labels',
            cas: { fieldMask: 'metadata.labels', conditionalState: { metadata: { labels: device.metadata?.labels } } },
          };
        }),
        allowPartialSuccess: true,
        responseMask: { skipEntireResponseBody: true },
      },
    });
    return (answer?.failures ?? []).map(({ name, error }) => {
      const status = error?.status ?? 'ERROR';
      return `${name ?? '?'}: ${status === 'ABORTED' ? 'its labels changed meanwhile' : `${status}: ${error?.message ?? ''}`}`;
    });
  });
}
