/**
 * TreeWriter against streams no honest sender produces: entries aimed through links that already exist below the
 * destination, more than the one file that was asked for, set-id modes. Nothing may land outside the destination.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  TreeWriter,
  encodeChunkPrefix,
  encodeDir,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
  placeEntry,
  writeTree,
} from '../../src/index.js';
import type { TreeWriterOptions } from '../../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-hostile-'));
  dirs.push(dir);
  return dir;
};

type CraftedEntry = { dir: string; mode?: number } | { file: string; content: string; mode?: number };

/** The transfer stream of exactly these entries, in this order, whatever they name. */
async function* crafted(entries: CraftedEntry[]): AsyncGenerator<Uint8Array> {
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    if ('dir' in entry) {
      yield encodeDir(entry.dir, entry.mode ?? 0o755);
      continue;
    }
    const content = Buffer.from(entry.content);
    yield encodeFileStart(entry.file, entry.mode ?? 0o644, content.length);
    yield encodeChunkPrefix(content.length);
    yield content;
    yield encodeFileEnd(createHash('sha256').update(content).digest('hex'), content.length);
    files += 1;
    bytes += content.length;
  }
  yield encodeEnd(files, bytes);
}

/** A destination folder and, beside it, a folder standing for everything outside it (`~/.ssh`, `/etc`). */
function world(): { destination: string; outside: string } {
  const base = tempDir();
  const destination = join(base, 'destination');
  const outside = join(base, 'outside');
  mkdirSync(destination);
  mkdirSync(outside);
  return { destination, outside };
}

const writeInto = (destination: string, entries: CraftedEntry[], options: Partial<TreeWriterOptions> = {}) =>
  writeTree(
    crafted(entries),
    new TreeWriter({ placeRoot: async (root) => placeEntry(destination, root.name, true), ...options }),
  );

describe('entries a hostile sender aims outside the destination', () => {
  it('are refused through a link to a directory that already exists below the root, with or without its D record', async () => {
    const { destination, outside } = world();
    mkdirSync(join(destination, 'site'));
    symlinkSync(outside, join(destination, 'site', 'link'));
    await expect(
      writeInto(destination, [{ dir: 'site' }, { file: 'site/link/authorized_keys', content: 'ssh-ed25519 evil' }]),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringMatching(/is a symbolic link/) });
    await expect(
      writeInto(destination, [{ dir: 'site' }, { dir: 'site/link' }, { file: 'site/link/x', content: 'x' }]),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    await expect(
      writeInto(destination, [{ dir: 'site' }, { dir: 'site/link/deeper', mode: 0o777 }]),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    expect(readdirSync(outside)).toEqual([]);
    expect(statSync(outside).mode & 0o777).not.toBe(0o777);
  });

  it('are refused through a link deeper in the tree, and what was written before stays inside', async () => {
    const { destination, outside } = world();
    mkdirSync(join(destination, 'site', 'a'), { recursive: true });
    symlinkSync(outside, join(destination, 'site', 'a', 'b'));
    await expect(
      writeInto(destination, [
        { dir: 'site' },
        { file: 'site/first.txt', content: 'inside' },
        { file: 'site/a/b/c/planted', content: 'evil' },
      ]),
    ).rejects.toThrow(/a\/b is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(destination, 'site', 'first.txt'), 'utf8')).toBe('inside');
  });

  it('replace a link that is the file itself instead of writing through it', async () => {
    const { destination, outside } = world();
    mkdirSync(join(destination, 'site'));
    symlinkSync(join(outside, 'bashrc'), join(destination, 'site', '.bashrc'));
    await writeInto(destination, [{ dir: 'site' }, { file: 'site/.bashrc', content: 'echo hi' }]);
    expect(existsSync(join(outside, 'bashrc'))).toBe(false);
    expect(readFileSync(join(destination, 'site', '.bashrc'), 'utf8')).toBe('echo hi');
  });

  it('a well-behaved tree into existing directories still lands', async () => {
    const { destination } = world();
    mkdirSync(join(destination, 'site', 'css'), { recursive: true });
    const summary = await writeInto(destination, [
      { dir: 'site' },
      { file: 'site/css/main.css', content: 'h1 {}' },
      { file: 'site/js/deep/app.js', content: 'x()' },
    ]);
    expect(summary.files).toBe(2);
    expect(readFileSync(join(destination, 'site', 'js', 'deep', 'app.js'), 'utf8')).toBe('x()');
  });
});

describe('what the receiver asked for', () => {
  it('singleFile: a directory root is refused and nothing is created', async () => {
    const { destination } = world();
    await expect(
      writeInto(destination, [{ dir: '.ssh' }, { file: '.ssh/authorized_keys', content: 'evil' }], {
        singleFile: true,
      }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringMatching(/where one file/) });
    expect(readdirSync(destination)).toEqual([]);
  });

  it('no entry follows a root that is a file', async () => {
    const { destination } = world();
    await expect(
      writeInto(destination, [
        { file: 'syslog', content: 'log' },
        { file: 'syslog/other', content: 'more' },
      ]),
    ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(/follows the single file/) });
    await expect(
      writeInto(destination, [
        { file: 'a', content: 'log' },
        { file: 'a', content: 'twice' },
      ]),
    ).rejects.toMatchObject({ status: 'INVALID_ARGUMENT' });
  });

  it('refuseSetIdModes: setuid files and setgid directories are refused; without it they are kept', async () => {
    const { destination } = world();
    await expect(
      writeInto(destination, [{ file: 'su', content: '#!/bin/sh', mode: 0o4755 }], { refuseSetIdModes: true }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION', message: expect.stringMatching(/4755 sets the user/) });
    await expect(
      writeInto(destination, [{ dir: 'shared', mode: 0o2775 }], { refuseSetIdModes: true }),
    ).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    expect(readdirSync(destination)).toEqual([]);
    await writeInto(destination, [{ file: 'tool', content: '#!/bin/sh', mode: 0o2755 }]);
    expect(statSync(join(destination, 'tool')).mode & 0o7777).toBe(0o2755);
  });
});
