import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatBytes, progressBar } from '../../src/cli/progress.js';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [1024 * 1024 - 1, '1.0 MiB'],
    [40 * 1024 * 1024, '40.0 MiB'],
    [2.5 * 1024 ** 3, '2.5 GiB'],
    [5 * 1024 ** 4, '5.0 TiB'],
    [2048 * 1024 ** 4, '2048.0 TiB'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('progressBar without a terminal', () => {
  it('prints a small file in bytes, not 0.0/0.0 MiB', () => {
    let written = '';
    const log = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const bar = progressBar('app.conf', 300, Object.assign(log, { isTTY: false }) as unknown as NodeJS.WriteStream);
    bar.update(300);
    bar.stop();
    expect(written).toBe('app.conf: 300 B/300 B (100%)\n');
  });
});
