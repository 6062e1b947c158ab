import { writeInBatches } from './batch-writes.js';
import type { RolloutDevice } from './device-record.js';
import { desiredVersion, ROLLOUT_FIELD_MASK } from './device-record.js';
import { defaultFailureBudget } from './failure-budget.js';
import type { FailureBudget } from './failure-budget.js';
import { preflightWave } from './preflight.js';
import type { NamedReason, WavePreflight } from './preflight.js';
import { BATCH_WRITE_SIZE } from './rollout-api.js';
import type { RolloutApi } from './rollout-api.js';
import { WatchFeed } from './watch-feed.js';
import { waveOf, wavesFilter } from './wave-labels.js';
import { countsOf, tallyDevices } from './wave-tally.js';
import type { DeviceFailure, WaveTally } from './wave-tally.js';
import { judgeWave } from './wave-verdict.js';

export interface RolloutOptions {
  /** `projects/{project}/regions/{region or -}` */
  parent: string;
  version: string;
  /** narrows the devices (a filter expression) */
  filter?: string;
  /** the waves in order: devices labelled `wave:<name>` */
  waves: readonly string[];
  /** failures each wave tolerates; default: none in the first wave, 10 % in later ones */
  budget?: FailureBudget;
  /** how long the devices of a wave must stay healthy on the version before the next wave starts */
  soakMs: number;
  /** a wave that has not completed this long after it started halts the rollout */
  waveTimeoutMs?: number;
  /** preflight only: write nothing */
  dryRun: boolean;
  /** asked after the preflight, before anything is written; false ends the rollout with nothing written */
  confirm?: (preflight: readonly WavePreflight[]) => Promise<boolean>;
  onEvent: (event: RolloutEvent) => void;
  /** Ctrl-C: stop following; what was written stays written, and a re-run goes on from the records */
  signal?: AbortSignal;
  /** the least time between two progress events of a wave whose counts keep changing (default 250 ms) */
  progressIntervalMs?: number;
}

export type WaveCounts = ReturnType<typeof countsOf>;

/** What a rollout tells as it goes (the CLI prints them as NDJSON with `-o json`). */
export type RolloutEvent =
  | { event: 'preflight'; version: string; waves: WavePreflight[] }
  | { event: 'waveSkipped'; wave: string; why: 'done' | 'empty'; counts: WaveCounts }
  | { event: 'waveStarted'; wave: string; counts: WaveCounts }
  | { event: 'written'; wave: string; written: number; refused: NamedReason[] }
  | { event: 'progress'; wave: string; counts: WaveCounts }
  | { event: 'promoted'; wave: string; counts: WaveCounts }
  | { event: 'halted'; wave: string; reason: string; failures: DeviceFailure[]; counts: WaveCounts }
  | { event: 'completed'; version: string; waves: { wave: string; counts: WaveCounts }[] }
  | { event: 'watchReconnecting'; why: string };

export type RolloutOutcome =
  | { kind: 'completed' }
  | { kind: 'halted'; wave: string; reason: string; failures: DeviceFailure[] }
  | { kind: 'dryRun'; preflight: WavePreflight[] }
  | { kind: 'declined' }
  | { kind: 'interrupted' };

/**
 * Rolls `version` out wave after wave, from the records alone: for each wave, the devices not yet asked for the
 * version are written (spec.osVersion only), then one stateless watch is followed until the wave is judged
 * through (promote) or not (halt). A wave the records show through already is skipped, so a re-run goes on
 * where an interrupted one stopped; a halt leaves later waves untouched.
 */
export async function runRollout(api: RolloutApi, options: RolloutOptions): Promise<RolloutOutcome> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const feed = new WatchFeed(
    api,
    { parent: options.parent, filter: wavesFilter(options.waves, options.filter), fieldMask: ROLLOUT_FIELD_MASK },
    stop.signal,
    (why) => options.onEvent({ event: 'watchReconnecting', why }),
  );
  try {
    return await drive(api, feed, options, stop.signal);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort(); // closes the watch
  }
}

async function drive(
  api: RolloutApi,
  feed: WatchFeed,
  options: RolloutOptions,
  signal: AbortSignal,
): Promise<RolloutOutcome> {
  const { version } = options;
  // a record is replaced, never changed, when news of it comes: its wave is worked out once per record
  const waves = new WeakMap<RolloutDevice, string | undefined>();
  const waveOfRecord = (device: RolloutDevice): string | undefined => {
    if (!waves.has(device)) waves.set(device, waveOf(device, options.waves));
    return waves.get(device);
  };
  const devicesOf = (wave: string): RolloutDevice[] =>
    [...feed.watched.devices.values()].filter((device) => waveOfRecord(device) === wave);

  await feed.untilCurrent();
  if (signal.aborted) return { kind: 'interrupted' };
  const published = await api.publishedVersions(version);
  const preflight = options.waves.map((wave) => preflightWave(wave, devicesOf(wave), version, published));
  options.onEvent({ event: 'preflight', version, waves: preflight });
  if (options.dryRun) return { kind: 'dryRun', preflight };
  if (options.confirm && !(await options.confirm(preflight))) return { kind: 'declined' };
  if (signal.aborted) return { kind: 'interrupted' };

  const finished: { wave: string; counts: WaveCounts }[] = [];
  for (const [index, wave] of options.waves.entries()) {
    const budget = options.budget ?? defaultFailureBudget(index);
    const startedAt = Date.now();
    const judge = (tally: WaveTally, refused: readonly NamedReason[]) =>
      judgeWave({
        tally,
        refused,
        budget,
        soakMs: options.soakMs,
        now: Date.now(),
        startedAt,
        ...(options.waveTimeoutMs !== undefined ? { timeoutMs: options.waveTimeoutMs } : {}),
      });

    const before = tallyDevices(devicesOf(wave), version);
    if (before.total === 0 || judge(before, []).kind === 'promote') {
      options.onEvent({
        event: 'waveSkipped',
        wave,
        why: before.total === 0 ? 'empty' : 'done',
        counts: countsOf(before),
      });
      finished.push({ wave, counts: countsOf(before) });
      continue;
    }
    options.onEvent({ event: 'waveStarted', wave, counts: countsOf(before) });
    const unwritten = devicesOf(wave)
      .filter((device) => desiredVersion(device) !== version)
      .map((device) => device.name);
    const refused = await writeAll(api, options.parent, unwritten, version, signal);
    if (signal.aborted) return { kind: 'interrupted' };
    options.onEvent({ event: 'written', wave, written: unwritten.length - refused.length, refused });
    const interval = options.progressIntervalMs ?? 250;

    let shown = '';
    let shownAt = 0;
    let judgedAt = 0;
    for (;;) {
      // news of thousands of devices comes in many small responses: judge what they add up to, a few times a second
      const settleUntil = judgedAt + JUDGE_INTERVAL_MS;
      while (Date.now() < settleUntil && !signal.aborted) await feed.next(settleUntil);
      if (feed.watched.current) {
        judgedAt = Date.now();
        const devices = devicesOf(wave);
        const tally = tallyDevices(devices, version);
        // a refused device stays on its old version: it is counted among the failures, not as unwritten
        const untargeted = new Set(devices.filter((d) => desiredVersion(d) !== version).map((d) => d.name));
        const verdict = judge(
          tally,
          refused.filter((r) => untargeted.has(r.name)),
        );
        const counts = countsOf(tally);
        const text = JSON.stringify(counts);
        const settled = verdict.kind !== 'wait';
        if (text !== shown && (settled || Date.now() - shownAt >= interval)) {
          options.onEvent({ event: 'progress', wave, counts });
          [shown, shownAt] = [text, Date.now()];
        }
        if (verdict.kind === 'promote') {
          options.onEvent({ event: 'promoted', wave, counts });
          finished.push({ wave, counts });
          break;
        }
        if (verdict.kind === 'halt') {
          options.onEvent({ event: 'halted', wave, reason: verdict.reason, failures: verdict.failures, counts });
          return { kind: 'halted', wave, reason: verdict.reason, failures: verdict.failures };
        }
        // counts held back by the interval are shown when it ends, news or not
        const wakeAt = [verdict.until, text !== shown ? shownAt + interval : undefined].filter(
          (t): t is number => t !== undefined,
        );
        await feed.next(wakeAt.length > 0 ? Math.min(...wakeAt) : undefined);
      } else {
        await feed.next();
      }
      if (signal.aborted) return { kind: 'interrupted' };
    }
  }
  options.onEvent({ event: 'completed', version, waves: finished });
  return { kind: 'completed' };
}

/** The least time between two judgements of a wave. */
const JUDGE_INTERVAL_MS = 100;

/** Writes the version to the devices, BATCH_WRITE_SIZE at a time, a few calls at once; answers the refusals. */
async function writeAll(
  api: RolloutApi,
  parent: string,
  names: readonly string[],
  version: string,
  signal: AbortSignal,
): Promise<NamedReason[]> {
  try {
    return await writeInBatches(
      names,
      BATCH_WRITE_SIZE,
      (batch) => api.writeOsVersion(parent, batch, version, signal),
      signal,
    );
  } catch (err) {
    if (!signal.aborted) throw err;
    return [];
  }
}
