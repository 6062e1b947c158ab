/**
 * The artifact store refuses an upload that outgrows --max-artifact-bytes and leaves no file behind, even when the
 * refusal comes with the very first chunk, before its temporary file was opened.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ArtifactStore } from '../../src/os/artifact-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('ArtifactStore.put', () => {
  it('leaves no temporary file when the first chunk is already too large', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-artifacts-'));
    dirs.push(dir);
    const store = new ArtifactStore(dir, { maxBytes: 1024, freeSpaceReserveBytes: 0 });
    // the race is rare: many tries make it show (it did, within 2,000, before the store waited for the file to close)
    for (let i = 0; i < 2000; i++) {
      await expect(store.put(Readable.from([Buffer.alloc(2048, i)]))).rejects.toMatchObject({ httpCode: 413 });
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('stores a fitting upload under its SHA-256 and nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-artifacts-'));
    dirs.push(dir);
    const store = new ArtifactStore(dir, { maxBytes: 1024, freeSpaceReserveBytes: 0 });
    const stored = await store.put(Readable.from([Buffer.alloc(512, 1), Buffer.alloc(512, 2)]));
    expect(stored.size).toBe(1024);
    expect(readdirSync(dir)).toEqual([stored.sha256]);
  });
});
