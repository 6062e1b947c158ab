import type { RolloutDevice } from './device-record.js';
import { hasLabel } from './device-record.js';

/** The waves of spec 000's guidance, in rollout order. */
export const DEFAULT_WAVES: readonly string[] = ['canary', 'early', 'main'];

const WAVE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** The label of a wave: key `wave:<name>` with an empty value, as spec 000 writes it. */
export const waveLabelKey = (wave: string): string => `wave:${wave}`;

/** The filter selecting a wave: `metadata.labels CONTAINS "wave:canary"`. */
export const waveFilter = (wave: string): string => `metadata.labels CONTAINS ${JSON.stringify(waveLabelKey(wave))}`;

/** `canary,early,main` as a list of distinct wave names; throws saying what is wrong. */
export function parseWaveNames(text: string): string[] {
  const names = text.split(',').map((n) => n.trim());
  for (const name of names) {
    if (!WAVE_NAME.test(name)) {
      throw new Error(`wave name "${name}" must be lowercase letters, digits, ".", "_" or "-" (at most 63)`);
    }
  }
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) throw new Error(`wave "${repeated}" is named twice`);
  return names;
}

/**
 * The first of `waves` the device belongs to (a device labelled for two waves goes with the earlier), or
 * undefined. `wave=canary` (key `wave`, value `canary`) counts as `wave:canary`, as filters take it.
 */
export const waveOf = (device: RolloutDevice, waves: readonly string[]): string | undefined =>
  waves.find((wave) => hasLabel(device, waveLabelKey(wave)));

/** Whether the device carries any wave label (`wave:<name>`, or `wave` with a value). */
export const hasWaveLabel = (device: RolloutDevice): boolean =>
  Object.keys(device.metadata?.labels ?? {}).some((key) => key === 'wave' || key.startsWith('wave:'));

/** The device's labels with every wave label replaced by the one of `wave`. */
export function labelsForWave(device: RolloutDevice, wave: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(device.metadata?.labels ?? {})) {
    if (key !== 'wave' && !key.startsWith('wave:')) labels[key] = value;
  }
  labels[waveLabelKey(wave)] = '';
  return labels;
}

/** The scope filter of a rollout: the user's filter, and membership of one of the waves. */
export function wavesFilter(waves: readonly string[], filter: string | undefined): string {
  const membership = `metadata.labels CONTAINS ANY (${waves.map((w) => JSON.stringify(waveLabelKey(w))).join(', ')})`;
  return filter !== undefined && filter.trim() !== '' ? `(${filter}) AND ${membership}` : membership;
}
