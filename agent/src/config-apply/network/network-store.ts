import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readJsonFile, writeFileAtomic, writeJsonFileAtomic } from '@outpost/shared';
import { z } from 'zod';
import type { SystemRoot } from '../system-root.js';
import type { RenderedFile } from './rendered-files.js';

/**
 * What the network part keeps under `{device_root}/config/network/`: `state.json` (written atomically) and
 * `known-good/` (the last configuration confirmed by the link coming back, or the factory one: its files and a
 * manifest), replaced whole by a rename so that a power cut leaves the old copy or the new one.
 */
const knownGoodSchema = z.object({
  source: z.enum(['desired', 'factory']),
  generation: z.int().nonnegative().optional(),
  interfaces: z.array(z.string()),
  files: z.array(z.object({ path: z.string().startsWith('/'), mode: z.int() })),
});
export type KnownGoodManifest = z.infer<typeof knownGoodSchema>;
export interface KnownGood extends KnownGoodManifest {
  contents: RenderedFile[];
}

const PHASES = ['applied', 'trial', 'failed', 'rolled-back'] as const;

export const networkStateSchema = z.object({
  /** sha-256 of the desired part (see desired-network.ts), or absent when none was seen yet */
  desiredHash: z.string().optional(),
  desiredGeneration: z.int().nonnegative(),
  appliedGeneration: z.int().nonnegative().optional(),
  source: z.enum(['desired', 'known-good', 'factory']),
  phase: z.enum(PHASES),
  error: z.string().optional(),
  /** while a change is on trial: what is tried and until when */
  trial: z
    .object({ generation: z.int().nonnegative(), interfaces: z.array(z.string()), deadline: z.iso.datetime() })
    .optional(),
});
export type NetworkState = z.infer<typeof networkStateSchema>;

export interface NetworkStore {
  readState(): Promise<NetworkState | undefined>;
  writeState(state: NetworkState): Promise<void>;
  readKnownGood(): Promise<KnownGood | undefined>;
  writeKnownGood(knownGood: Omit<KnownGood, 'files'>): Promise<void>;
}

export function networkStore(deviceRoot: string): NetworkStore {
  const dir = join(deviceRoot, 'config', 'network');
  const stateFile = join(dir, 'state.json');
  const knownGoodDir = join(dir, 'known-good');
  const previousDir = join(dir, 'known-good.old');
  const read = async (from: string): Promise<KnownGood | undefined> => {
    const parsed = knownGoodSchema.safeParse(await readJsonFile(join(from, 'manifest.json')).catch(() => undefined));
    if (!parsed.success) return undefined;
    const contents: RenderedFile[] = [];
    for (const file of parsed.data.files) {
      contents.push({ ...file, content: await readFile(join(from, 'files', file.path), 'utf8') });
    }
    return { ...parsed.data, contents };
  };
  return {
    async readState() {
      const parsed = networkStateSchema.safeParse(await readJsonFile(stateFile).catch(() => undefined));
      return parsed.success ? parsed.data : undefined;
    },
    writeState: (state) => writeJsonFileAtomic(stateFile, state),
    async readKnownGood() {
      // a power cut between the two renames of writeKnownGood leaves only the previous copy
      return (await read(knownGoodDir).catch(() => undefined)) ?? (await read(previousDir).catch(() => undefined));
    },
    async writeKnownGood(knownGood) {
      const next = join(dir, 'known-good.new');
      await rm(next, { recursive: true, force: true });
      for (const file of knownGood.contents) {
        const target = join(next, 'files', file.path);
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, file.content, { mode: file.mode });
      }
      const manifest: KnownGoodManifest = {
        source: knownGood.source,
        ...(knownGood.generation === undefined ? {} : { generation: knownGood.generation }),
        interfaces: knownGood.interfaces,
        files: knownGood.contents.map(({ path, mode }) => ({ path, mode })),
      };
      await writeJsonFileAtomic(join(next, 'manifest.json'), manifest);
      await rm(previousDir, { recursive: true, force: true });
      await rename(knownGoodDir, previousDir).catch(() => undefined);
      await rename(next, knownGoodDir);
      await rm(previousDir, { recursive: true, force: true });
    },
  };
}

/** Replaces the files Outpost owns on the system with `files` (each written atomically), removing the others. */
export async function installFiles(root: SystemRoot, owned: string[], files: RenderedFile[]): Promise<void> {
  const keep = new Set(files.map((file) => file.path));
  for (const path of owned) if (!keep.has(path)) await rm(root.path(path), { force: true });
  for (const file of files) {
    await writeFileAtomic(root.path(file.path), file.content, file.mode);
    await chmod(root.path(file.path), file.mode);
  }
}

/** The content of the files Outpost owns now. */
export async function readFiles(
  root: SystemRoot,
  paths: string[],
  modeOf: (path: string) => number,
): Promise<RenderedFile[]> {
  const files: RenderedFile[] = [];
  for (const path of paths) files.push({ path, content: await readFile(root.path(path), 'utf8'), mode: modeOf(path) });
  return files;
}

export const sameFiles = (a: RenderedFile[], b: RenderedFile[]): boolean => {
  const key = (files: RenderedFile[]): string =>
    JSON.stringify([...files].sort((x, y) => x.path.localeCompare(y.path)).map((file) => [file.path, file.content]));
  return key(a) === key(b);
};
