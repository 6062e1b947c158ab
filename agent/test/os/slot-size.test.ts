import { describe, expect, it } from 'vitest';
import { parseByteSize } from '../../src/config/byte-size.js';

describe('--slot-size values', () => {
  it.each([
    ['1073741824', 1073741824],
    ['512M', 512 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['64KiB', 64 * 1024],
    ['1.5g', 1.5 * 1024 ** 3],
    [' 16 MB ', 16 * 1024 ** 2],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', '0', '-1', 'lots', '12X', '1e9'])('refuses %j', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
