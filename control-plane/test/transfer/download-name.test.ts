import { describe, expect, it } from 'vitest';
import { downloadName, printable } from '../../src/cli/transfer-commands.js';

describe('the local name of a download', () => {
  it('is the last segment of the device path the operator typed', () => {
    expect(downloadName('/var/log/syslog')).toBe('syslog');
    expect(downloadName('/var/log/')).toBe('log');
    expect(downloadName('/var/log/.')).toBe('log');
    expect(downloadName('/var/log/x/..')).toBe('log');
    expect(downloadName('data/logs')).toBe('logs');
    expect(downloadName('/')).toBe('root');
  });

  it('is refused when the path names nothing', () => {
    for (const path of ['..', '.', '../..', 'a/../..']) {
      expect(() => downloadName(path)).toThrow(/must end in the name of a file or directory/);
    }
  });
});

describe('printable', () => {
  it('escapes C0 and C1 control characters, keeping other text', () => {
    expect(printable('a\u001b[2Jb\u009b\u0007ü日本')).toBe('a\\x1b[2Jb\\x9b\\x07ü日本');
  });
});
