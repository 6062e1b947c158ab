import type { RolloutDevice } from './device-record.js';
import { deviceTypeOf, isOnline } from './device-record.js';
import { seededOrder } from './seeded-order.js';
import { hasWaveLabel, waveOf } from './wave-labels.js';

/** The three waves `label-waves` writes, in order. */
export const PLANNED_WAVES = ['canary', 'early', 'main'] as const;
export type PlannedWave = (typeof PLANNED_WAVES)[number];

export interface WavePlanOptions {
  /** devices in the canary, chosen among those online now */
  canary: number;
  /** percentage (0-100) of all the devices in the early wave, rounded up */
  earlyPercent: number;
  /** keys the canary and the early wave spread across: label keys, and `deviceType` for the device's type */
  spreadBy: readonly string[];
  seed: string;
  /** place every device again, ignoring the wave labels devices carry */
  relabel: boolean;
}

export interface WaveAssignment {
  name: string;
  wave: PlannedWave;
  /** the wave the device was in before (its wave label), if any */
  previous?: string;
}

export interface WavePlan {
  /** every device, with the wave it is in after the plan */
  assignments: WaveAssignment[];
  /** the devices whose labels change */
  changes: WaveAssignment[];
  /** devices left alone: they carry a wave label of no planned wave (without --relabel) */
  untouched: { name: string; wave: string }[];
  /** how many devices the canary lacks because too few were online */
  canaryShortBy: number;
  /** per spread-by key and value: devices of each wave */
  spread: Record<string, Record<string, Record<PlannedWave, number>>>;
}

/** The value of a spread-by key for a device: its label, or its type for `deviceType`; `(none)` without one. */
export function spreadValueOf(device: RolloutDevice, key: string): string {
  const value = key === 'deviceType' ? deviceTypeOf(device) : device.metadata?.labels?.[key];
  return value === undefined || value === '' ? '(none)' : value;
}

/**
 * Places devices in the canary, early and main waves (spec 000's guidance): the canary from devices online now,
 * the early wave spread evenly across the values of the spread-by keys, the rest main. Deterministic for a seed
 * (devices are taken in the seed's order); devices already labelled for a wave keep it and count toward its size
 * unless `relabel`, so running it again changes nothing and a new device goes where the waves lack one.
 */
export function planWaves(devices: readonly RolloutDevice[], options: WavePlanOptions): WavePlan {
  const ordered = seededOrder(devices, options.seed);
  const placed = new Map<string, PlannedWave>();
  const previous = new Map<string, string>();
  const untouched: { name: string; wave: string }[] = [];
  const free: RolloutDevice[] = [];
  for (const device of ordered) {
    const current = waveOf(device, PLANNED_WAVES) as PlannedWave | undefined;
    if (current !== undefined) previous.set(device.name, current);
    if (options.relabel || !hasWaveLabel(device)) {
      free.push(device);
    } else if (current !== undefined) {
      placed.set(device.name, current);
    } else {
      untouched.push({ name: device.name, wave: labelledWave(device) });
    }
  }

  const spreader = new Spreader(options.spreadBy);
  const members = (wave: PlannedWave): RolloutDevice[] => ordered.filter((d) => placed.get(d.name) === wave);
  const take = (wave: PlannedWave, want: number, eligible: (d: RolloutDevice) => boolean): number => {
    const chosen = spreader.pick(
      free.filter((d) => !placed.has(d.name) && eligible(d)),
      members(wave),
      want,
    );
    for (const device of chosen) placed.set(device.name, wave);
    return chosen.length;
  };

  const canaryWanted = Math.max(0, options.canary - members('canary').length);
  const canaryTaken = take('canary', canaryWanted, isOnline);
  const earlyTarget = Math.ceil((devices.length * options.earlyPercent) / 100);
  take('early', Math.max(0, earlyTarget - members('early').length), () => true);
  for (const device of free) if (!placed.has(device.name)) placed.set(device.name, 'main');

  const assignments: WaveAssignment[] = [];
  for (const device of devices) {
    const wave = placed.get(device.name);
    if (wave === undefined) continue;
    const was = previous.get(device.name);
    assignments.push({ name: device.name, wave, ...(was !== undefined ? { previous: was } : {}) });
  }
  const byName = new Map(devices.map((d) => [d.name, d]));
  const changes = assignments.filter(
    (a) => a.previous !== a.wave || (options.relabel && !carriesOnly(byName.get(a.name)!, a.wave)),
  );
  return {
    assignments,
    changes,
    untouched,
    canaryShortBy: canaryWanted - canaryTaken,
    spread: spreadTable(assignments, byName, options.spreadBy),
  };
}

/** The wave named by a device's wave label, for one outside the planned waves. */
function labelledWave(device: RolloutDevice): string {
  const labels = device.metadata?.labels ?? {};
  const key = Object.keys(labels).find((k) => k.startsWith('wave:'));
  return key !== undefined ? key.slice('wave:'.length) : (labels['wave'] ?? '');
}

/** Whether the device's only wave label is exactly `wave:<wave>` with an empty value. */
function carriesOnly(device: RolloutDevice, wave: string): boolean {
  const keys = Object.entries(device.metadata?.labels ?? {}).filter(([k]) => k === 'wave' || k.startsWith('wave:'));
  return keys.length === 1 && keys[0]![0] === `wave:${wave}` && keys[0]![1] === '';
}

/**
 * Picks devices so that each value of each spread-by key is represented as evenly as it can be: every pick
 * takes, from the group of devices sharing their values that is least represented so far (the sum over the
 * keys of how many chosen devices share the value), the next device in seed order.
 */
class Spreader {
  constructor(private readonly keys: readonly string[]) {}

  pick(candidates: readonly RolloutDevice[], alreadyIn: readonly RolloutDevice[], want: number): RolloutDevice[] {
    const counts = this.keys.map(() => new Map<string, number>());
    const count = (device: RolloutDevice): void =>
      this.keys.forEach((key, i) => {
        const value = spreadValueOf(device, key);
        counts[i]!.set(value, (counts[i]!.get(value) ?? 0) + 1);
      });
    alreadyIn.forEach(count);
    const groups = new Map<string, { values: string[]; queue: RolloutDevice[] }>();
    for (const device of candidates) {
      const values = this.keys.map((key) => spreadValueOf(device, key));
      const id = JSON.stringify(values);
      let group = groups.get(id);
      if (!group) groups.set(id, (group = { values, queue: [] }));
      group.queue.push(device);
    }
    const open = [...groups.values()];
    const chosen: RolloutDevice[] = [];
    while (chosen.length < want && open.length > 0) {
      let best = 0;
      let bestScore = Infinity;
      open.forEach((group, i) => {
        const score = group.values.reduce((sum, value, k) => sum + (counts[k]!.get(value) ?? 0), 0);
        if (score < bestScore) [best, bestScore] = [i, score];
      });
      const group = open[best]!;
      const device = group.queue.shift()!;
      chosen.push(device);
      count(device);
      if (group.queue.length === 0) open.splice(best, 1);
    }
    return chosen;
  }
}

function spreadTable(
  assignments: readonly WaveAssignment[],
  byName: ReadonlyMap<string, RolloutDevice>,
  keys: readonly string[],
): WavePlan['spread'] {
  const table: WavePlan['spread'] = {};
  for (const key of keys) {
    const perValue: Record<string, Record<PlannedWave, number>> = (table[key] = {});
    for (const a of assignments) {
      const value = spreadValueOf(byName.get(a.name)!, key);
      const row = (perValue[value] ??= { canary: 0, early: 0, main: 0 });
      row[a.wave]++;
    }
  }
  return table;
}
