import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import { z } from 'zod';
import type { ConfigurationPart } from '@outpost/shared';
import type { PartPhase, PartReport } from './part-status.js';

/**
 * The state of a configuration part whose desired content is one small JSON value (ssh, proxy, logging), kept in
 * `{device_root}/config/<part>/state.json`; its known-good copy (the content last applied and kept) in
 * `{device_root}/config/<part>/known-good/config.json`. Both are written atomically.
 */
export const partStateSchema = z.object({
  /** sha-256 of the part's canonical JSON (see contentHash), absent before the first spec */
  desiredHash: z.string().optional(),
  desiredGeneration: z.int().nonnegative(),
  appliedGeneration: z.int().nonnegative().optional(),
  source: z.enum(['desired', 'known-good', 'factory']),
  phase: z.enum(['applying', 'trial', 'applied', 'failed', 'rolled-back']),
  error: z.string().optional(),
  /** shown with an Applied condition (e.g. that sshd was not asked) */
  note: z.string().optional(),
  /** while a change is on trial: its generation and the end of its grace period */
  trial: z.object({ generation: z.int().nonnegative(), deadline: z.iso.datetime() }).optional(),
});
export type PartState = z.infer<typeof partStateSchema>;

export const FACTORY_PART_STATE: PartState = { desiredGeneration: 0, source: 'factory', phase: 'applied' };

const knownGoodSchema = z.object({
  /** the desired generation it came from */
  generation: z.int().nonnegative(),
  content: z.unknown(),
});
export type KnownGoodContent = z.infer<typeof knownGoodSchema>;

export interface PartStore {
  readState(): Promise<PartState | undefined>;
  writeState(state: PartState): Promise<void>;
  /** undefined: nothing desired was ever kept (the factory configuration) */
  readKnownGood(): Promise<KnownGoodContent | undefined>;
  writeKnownGood(knownGood: KnownGoodContent | undefined): Promise<void>;
}

export function partStore(deviceRoot: string, part: ConfigurationPart): PartStore {
  const dir = join(deviceRoot, 'config', part);
  const stateFile = join(dir, 'state.json');
  const knownGoodFile = join(dir, 'known-good', 'config.json');
  return {
    async readState() {
      const parsed = partStateSchema.safeParse(await readJsonFile(stateFile).catch(() => undefined));
      return parsed.success ? parsed.data : undefined;
    },
    writeState: (state) => writeJsonFileAtomic(stateFile, state),
    async readKnownGood() {
      const parsed = knownGoodSchema.safeParse(await readJsonFile(knownGoodFile).catch(() => undefined));
      return parsed.success && parsed.data.content !== null ? parsed.data : undefined;
    },
    // "none" is written as a null content rather than a removal, so that the write stays one atomic rename
    writeKnownGood: (knownGood) => writeJsonFileAtomic(knownGoodFile, knownGood ?? { generation: 0, content: null }),
  };
}

/**
 * The part's state when the agent starts; a run a restart interrupted mid-apply forgets its desired hash, so that
 * the next spec applies it again.
 */
export async function takeUpPartState(store: PartStore): Promise<PartState> {
  const state = (await store.readState()) ?? FACTORY_PART_STATE;
  if (state.phase === 'applying') {
    const redo: PartState = { ...state };
    delete redo.desiredHash;
    await store.writeState(redo);
  }
  return state;
}

/** Where a run for a new desired content starts: its hash and generation, without the last run's error or note. */
export function changeBase(state: PartState, desiredHash: string, generation: number): PartState {
  const base: PartState = { ...state, desiredHash, desiredGeneration: generation };
  delete base.error;
  delete base.note;
  return base;
}

/** sha-256 of the value's JSON with object keys sorted: the part changed when this changed. */
export function contentHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value ?? null, (_key, v: unknown) => (isPlainObject(v) ? sortedObject(v) : v)))
    .digest('hex');
}

/** What the part status sink takes for a state. */
export function partReportOf(state: PartState): PartReport {
  return {
    desiredGeneration: state.desiredGeneration,
    ...(state.appliedGeneration === undefined ? {} : { appliedGeneration: state.appliedGeneration }),
    source: state.source,
    phase: phaseOf(state),
    ...(state.note === undefined ? {} : { note: state.note }),
  };
}

function phaseOf(state: PartState): PartPhase {
  switch (state.phase) {
    case 'applying':
    case 'trial':
    case 'applied':
      return { phase: state.phase };
    case 'failed':
    case 'rolled-back':
      return { phase: state.phase, error: state.error ?? state.phase };
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const sortedObject = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, value[key]]),
  );
