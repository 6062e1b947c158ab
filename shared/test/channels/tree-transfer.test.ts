import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CHUNK_RECORD_BYTES,
  TreeWriter,
  encodeTree,
  placeEntry,
  prepareTreeSource,
  writeTree,
} from '../../src/index.js';
import type { FileProgress, TreeRoot } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-tree-'));
  dirs.push(dir);
  return dir;
};

async function* collectStream(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  mutate?: (all: Buffer) => void,
) {
  const parts: Buffer[] = [];
  for await (const piece of pieces) parts.push(Buffer.from(piece));
  const all = Buffer.concat(parts);
  mutate?.(all);
  // re-cut into odd sizes, as a network would
  for (let at = 0; at < all.length; at += 7777) yield all.subarray(at, at + 7777);
}

const into = (destination: string, intoDirectory: boolean) => async (root: TreeRoot) =>
  placeEntry(destination, root.name, intoDirectory);

/** every file below `dir` (relative path → content hash and mode) */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string): void => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const info = lstatSync(full);
      const key = rel === '' ? name : `${rel}/${name}`;
      if (!info.isDirectory() && !info.isFile()) continue;
      if (info.isDirectory()) {
        out[`${key}/`] = (info.mode & 0o777).toString(8);
        walk(full, key);
      } else
        out[key] =
          `${(info.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
    }
  };
  walk(dir, '');
  return out;
}

describe('tree transfer (sender and writer on real files)', () => {
  it('copies one file under a new name, keeping its mode and bytes', async () => {
    const src = tempDir();
    const dst = tempDir();
    const file = join(src, 'data.bin');
    writeFileSync(file, randomBytes(3 * 1024 * 1024 + 5));
    chmodSync(file, 0o640);
    const source = await prepareTreeSource(file, false);
    expect(source).toMatchObject({ rootName: 'data.bin', kind: 'file' });
    const progress: FileProgress[] = [];
    const summary = await writeTree(
      collectStream(encodeTree(source)),
      new TreeWriter({ placeRoot: into(join(dst, 'renamed.bin'), false), onProgress: (p) => progress.push(p) }),
    );
    expect(summary).toMatchObject({ files: 1, bytes: 3 * 1024 * 1024 + 5, destination: join(dst, 'renamed.bin') });
    expect(readFileSync(join(dst, 'renamed.bin')).equals(readFileSync(file))).toBe(true);
    expect(statSync(join(dst, 'renamed.bin')).mode & 0o777).toBe(0o640);
    expect(progress.at(-1)).toMatchObject({ finished: true, done: 3 * 1024 * 1024 + 5 });
  });

  it('reads each chunk record, at most CHUNK_RECORD_BYTES long, into the memory its consumer hands out', async () => {
    const src = tempDir();
    const dst = tempDir();
    const content = randomBytes(2 * CHUNK_RECORD_BYTES + 12_345);
    writeFileSync(join(src, 'big.bin'), content);
    const handedOut = new Set<ArrayBufferLike>();
    const allocate = (length: number): Uint8Array => {
      const memory = new Uint8Array(length);
      handedOut.add(memory.buffer);
      return memory;
    };
    const chunks: Uint8Array[] = [];
    async function* recorded() {
      for await (const piece of encodeTree(await prepareTreeSource(join(src, 'big.bin'), false), undefined, allocate)) {
        if (piece[0] === 'C'.charCodeAt(0)) chunks.push(piece);
        yield piece;
      }
    }
    await writeTree(recorded(), new TreeWriter({ placeRoot: into(dst, true) }));
    expect(readFileSync(join(dst, 'big.bin')).equals(content)).toBe(true);
    expect(chunks).toHaveLength(3);
    expect(chunks.every((chunk) => handedOut.has(chunk.buffer) && chunk.length <= CHUNK_RECORD_BYTES)).toBe(true);
  });

  it('an empty file travels as a start and a hash record only', async () => {
    const src = tempDir();
    const dst = tempDir();
    writeFileSync(join(src, 'empty'), '');
    const pieces: Uint8Array[] = [];
    for await (const piece of encodeTree(await prepareTreeSource(join(src, 'empty'), false))) pieces.push(piece);
    expect(pieces.map((piece) => String.fromCharCode(piece[0]!))).toEqual(['F', 'H', 'Z']);
    await writeTree(collectStream(pieces), new TreeWriter({ placeRoot: into(dst, true) }));
    expect(readFileSync(join(dst, 'empty'))).toHaveLength(0);
  });

  it('copies a tree into a directory; symlinks and special files are left out and reported', async () => {
    const src = tempDir();
    const dst = tempDir();
    const tree = join(src, 'app');
    mkdirSync(join(tree, 'conf', 'deep'), { recursive: true });
    writeFileSync(join(tree, 'a.txt'), 'alpha');
    writeFileSync(join(tree, 'conf', 'empty'), '');
    writeFileSync(join(tree, 'conf', 'deep', 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(tree, 'conf', 'deep', 'run.sh'), 0o755);
    chmodSync(join(tree, 'conf'), 0o750);
    symlinkSync('/etc/passwd', join(tree, 'link'));
    execFileSync('mkfifo', [join(tree, 'pipe')]);
    const summary = await writeTree(
      collectStream(encodeTree(await prepareTreeSource(tree, true))),
      new TreeWriter({ placeRoot: into(dst, true) }),
    );
    expect(summary.files).toBe(3);
    expect(summary.skipped).toEqual([
      { path: 'app/link', reason: 'symbolic link' },
      { path: 'app/pipe', reason: 'not a regular file' },
    ]);
    expect(snapshot(dst)).toEqual(snapshot(src));
    expect(Object.keys(snapshot(dst))).toContain('app/conf/deep/run.sh');
  });

  it('refuses sources it cannot send', async () => {
    const src = tempDir();
    execFileSync('mkfifo', [join(src, 'pipe')]);
    await expect(prepareTreeSource(src, false)).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    await expect(prepareTreeSource(join(src, 'pipe'), true)).rejects.toThrow(/not a regular file/);
    await expect(prepareTreeSource(join(src, 'missing'), false)).rejects.toMatchObject({ status: 'NOT_FOUND' });
  });

  it('a corrupted byte is caught by the SHA-256 and leaves neither the file nor a temporary behind', async () => {
    const src = tempDir();
    const dst = tempDir();
    writeFileSync(join(src, 'f'), randomBytes(100_000));
    const corrupt = (all: Buffer): void => {
      all[50_000] = (all[50_000]! + 1) % 256;
    };
    await expect(
      writeTree(
        collectStream(encodeTree(await prepareTreeSource(join(src, 'f'), false)), corrupt),
        new TreeWriter({ placeRoot: into(dst, true) }),
      ),
    ).rejects.toThrow(/SHA-256 mismatch/);
    expect(readdirSync(dst)).toEqual([]);
  });

  it('a stream cut short leaves nothing at the destination', async () => {
    const src = tempDir();
    const dst = tempDir();
    writeFileSync(join(src, 'f'), randomBytes(100_000));
    async function* truncated() {
      let sent = 0;
      for await (const piece of encodeTree(await prepareTreeSource(join(src, 'f'), false))) {
        if (sent + piece.length > 60_000) return;
        sent += piece.length;
        yield piece;
      }
    }
    await expect(writeTree(truncated(), new TreeWriter({ placeRoot: into(dst, true) }))).rejects.toThrow(/ended early/);
    expect(readdirSync(dst)).toEqual([]);
  });

  it('will not put a file where a directory is, nor a directory where a file is', async () => {
    const src = tempDir();
    const dst = tempDir();
    writeFileSync(join(src, 'x'), 'x');
    mkdirSync(join(dst, 'x'));
    await expect(
      writeTree(
        encodeTree(await prepareTreeSource(join(src, 'x'), false)),
        new TreeWriter({ placeRoot: into(dst, true) }),
      ),
    ).rejects.toThrow(/is a directory/);
    mkdirSync(join(src, 'd'));
    writeFileSync(join(dst, 'd'), 'file');
    await expect(
      writeTree(
        encodeTree(await prepareTreeSource(join(src, 'd'), true)),
        new TreeWriter({ placeRoot: into(dst, true) }),
      ),
    ).rejects.toThrow(/not a directory/);
  });
});
