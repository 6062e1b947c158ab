import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TreeWriter, encodeTree, prepareTreeSource, writeTree } from '@outpost/shared';
import { partFileRecord, partFilesDir, removePartFilesLeftBehind } from '../../src/transfer/part-files.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

async function* pieces(path: string): AsyncIterable<Uint8Array> {
  yield* encodeTree(await prepareTreeSource(path, true));
}

describe('the record of upload part files', () => {
  it('holds each temporary file while it is written and forgets it once it is renamed into place', async () => {
    const [data, local, box] = [await tempDir(), await tempDir(), await tempDir()];
    mkdirSync(join(local, 'tree'));
    writeFileSync(join(local, 'tree', 'a.txt'), 'a');
    writeFileSync(join(local, 'tree', 'b.txt'), 'b');
    const record = partFileRecord(data, capturedLogger().logger);
    const seen: string[] = [];
    const writer = new TreeWriter({
      placeRoot: async (root) => join(box, root.name),
      partFiles: {
        add: async (path) => {
          await record.add(path);
          seen.push(...readdirSync(partFilesDir(data)));
        },
        remove: (path) => record.remove(path),
      },
    });
    await writeTree(pieces(join(local, 'tree')), writer);
    expect(seen).toHaveLength(2);
    expect(readdirSync(partFilesDir(data))).toEqual([]);
    expect(readdirSync(join(box, 'tree')).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('at start removes the recorded part files, and nothing a record names that is not one', async () => {
    const [data, box] = [await tempDir(), await tempDir()];
    const records = partFilesDir(data);
    mkdirSync(records, { recursive: true });
    const left = join(box, '.big.bin.0123456789ab.outpost-part');
    writeFileSync(left, Buffer.alloc(4096));
    const notAPart = join(box, 'precious.txt');
    writeFileSync(notAPart, 'keep');
    const directory = join(box, '.dir.0123456789ab.outpost-part');
    mkdirSync(directory);
    const link = join(box, '.link.0123456789ab.outpost-part');
    symlinkSync(notAPart, link);
    const unrecorded = join(box, '.other.0123456789ab.outpost-part');
    writeFileSync(unrecorded, 'not recorded');
    const paths = [
      left,
      notAPart,
      directory,
      link,
      'relative/.x.0123456789ab.outpost-part',
      join(box, '.gone.0123456789ab.outpost-part'),
    ];
    paths.forEach((path, i) => writeFileSync(join(records, `r${i}`), path));

    const log = capturedLogger();
    await removePartFilesLeftBehind(data, log.logger);
    expect(existsSync(left)).toBe(false);
    expect(readdirSync(box).sort()).toEqual(
      [
        '.dir.0123456789ab.outpost-part',
        '.link.0123456789ab.outpost-part',
        '.other.0123456789ab.outpost-part',
        'precious.txt',
      ].sort(),
    );
    expect(readdirSync(records)).toEqual([]);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ files: [left], bytes: 4096, msg: expect.stringMatching(/removed the partial files/) }),
    );
  });

  it('at start does nothing when no upload was ever recorded', async () => {
    const data = await tempDir();
    const log = capturedLogger();
    await removePartFilesLeftBehind(data, log.logger);
    expect(log.lines).toEqual([]);
  });
});
