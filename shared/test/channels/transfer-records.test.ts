import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  TransferDecoder,
  checkEntryPath,
  encodeChunkPrefix,
  encodeDir,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
  encodeSkipped,
  encodeTransferError,
  lastSegment,
  placeEntry,
} from '../../src/index.js';
import type { TransferEvent } from '../../src/index.js';

const HASH = 'a'.repeat(64);
const concat = (parts: Uint8Array[]): Uint8Array => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
};

/** Decodes `stream` fed in the given piece sizes, joining consecutive file data events. */
function decode(stream: Uint8Array, cuts: number[] = []): TransferEvent[] {
  const decoder = new TransferDecoder();
  const events: TransferEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, stream.length]) {
    const end = Math.min(stream.length, at + cut);
    events.push(...decoder.push(stream.subarray(at, end)));
    at = end;
    if (at >= stream.length) break;
  }
  if (at < stream.length) events.push(...decoder.push(stream.subarray(at)));
  decoder.finish();
  const joined: TransferEvent[] = [];
  for (const event of events) {
    const last = joined.at(-1);
    if (event.kind === 'fileData' && last?.kind === 'fileData') {
      joined[joined.length - 1] = { kind: 'fileData', bytes: concat([last.bytes, event.bytes]) };
    } else joined.push(event.kind === 'fileData' ? { kind: 'fileData', bytes: event.bytes.slice() } : event);
  }
  return joined;
}

describe('transfer records', () => {
  const content = new TextEncoder().encode('hello, device');
  const stream = concat([
    encodeDir('photos', 0o755),
    encodeFileStart('photos/a.txt', 0o640, content.length),
    encodeChunkPrefix(5),
    content.subarray(0, 5),
    encodeChunkPrefix(0),
    encodeChunkPrefix(content.length - 5),
    content.subarray(5),
    encodeFileEnd(HASH, content.length),
    encodeFileStart('photos/empty', 0o600),
    encodeFileEnd(HASH, 0),
    encodeSkipped('photos/fifo', 'not a regular file'),
    encodeEnd(2, content.length),
  ]);
  const expected: TransferEvent[] = [
    { kind: 'dir', path: 'photos', mode: 0o755 },
    { kind: 'fileStart', path: 'photos/a.txt', mode: 0o640, size: content.length },
    { kind: 'fileData', bytes: content },
    { kind: 'fileEnd', sha256: HASH, size: content.length },
    { kind: 'fileStart', path: 'photos/empty', mode: 0o600 },
    { kind: 'fileEnd', sha256: HASH, size: 0 },
    { kind: 'skipped', path: 'photos/fifo', reason: 'not a regular file' },
    { kind: 'end', files: 2, bytes: content.length },
  ];

  it('decode to the same events however the stream is cut', () => {
    expect(decode(stream)).toEqual(expected);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 }), (cuts) => {
        expect(decode(stream, cuts)).toEqual(expected);
      }),
    );
  });

  it('an error record may come between the chunks of a file and ends the stream', () => {
    const failed = concat([
      encodeFileStart('f', 0o644, 10),
      encodeChunkPrefix(3),
      new Uint8Array(3),
      encodeTransferError('NOT_FOUND', 'vanished'),
    ]);
    expect(decode(failed).at(-1)).toEqual({ kind: 'error', status: 'NOT_FOUND', message: 'vanished' });
  });

  it('refuses unsafe entry paths', () => {
    for (const path of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', './a', 'a/.', 'x\0y', '']) {
      expect(() => decode(concat([encodeDir(path, 0o755), encodeEnd(0, 0)]))).toThrow(/refused|needs a path/);
    }
    expect(checkEntryPath('a/b..c/..d')).toBe('a/b..c/..d');
  });

  it('refuses malformed structure', () => {
    const cases: [Uint8Array[], RegExp][] = [
      [[encodeFileStart('f', 0o644), encodeDir('d', 0o755)], /must end with its hash/],
      [[encodeFileEnd(HASH, 0)], /outside a file/],
      [[encodeChunkPrefix(1), new Uint8Array(1)], /outside a file/],
      [[encodeEnd(0, 0), encodeDir('d', 0o755)], /after its end/],
      [[new Uint8Array([81, 0, 0, 0, 2, 123, 125])], /unknown transfer record/],
      [[new Uint8Array([68, 0, 0, 0, 1, 123])], /malformed header/],
      [[new Uint8Array([68, 0, 0x10, 0, 0])], /too large/],
      [[encodeDir('d', 0o70000)], /invalid/],
    ];
    for (const [parts, problem] of cases) expect(() => decode(concat(parts))).toThrow(problem);
    expect(() => decode(encodeDir('d', 0o755))).toThrow(/ended early/);
  });
});

describe('path rules', () => {
  it('place entries into a directory or as the new name of the root', () => {
    expect(placeEntry('/srv/', 'a.txt', true)).toBe('/srv/a.txt');
    expect(placeEntry('/srv/b.txt', 'a.txt', false)).toBe('/srv/b.txt');
    expect(placeEntry('/srv/', 'photos/x/y.jpg', true)).toBe('/srv/photos/x/y.jpg');
    expect(placeEntry('/srv/pics', 'photos/x/y.jpg', false)).toBe('/srv/pics/x/y.jpg');
    expect(placeEntry('/srv/pics', 'photos', false)).toBe('/srv/pics');
    expect(placeEntry('/', 'a', true)).toBe('/a');
    expect(placeEntry('out', 'a/b', true)).toBe('out/a/b');
  });

  it('name the last segment of a path', () => {
    expect(lastSegment('/a/b/')).toBe('b');
    expect(lastSegment('/a/b')).toBe('b');
    expect(lastSegment('b')).toBe('b');
    expect(lastSegment('/')).toBe('');
  });
});
