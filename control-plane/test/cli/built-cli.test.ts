import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The bin as installed: the build output that `npm test` compiles first.
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

const outpost = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', OUTPOST_SERVER: 'http://127.0.0.1:1' },
    input: '',
  });

describe('the built outpost command', () => {
  it('exits 0 for --help', () => {
    const result = outpost('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: outpost');
    expect(result.stdout).toContain('iam');
  });

  it('exits 2 for usage errors', () => {
    const result = outpost('iam', 'create-key');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("error: required option '--display-name <name>' not specified");
  });

  it('exits 1 with error: <STATUS>: <message> when the server cannot be reached', () => {
    const result = outpost('iam', 'list-keys', '--key', 'k');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error: UNAVAILABLE: cannot reach http:\/\/127\.0\.0\.1:1: /);
    expect(result.stdout).toBe('');
  });
});
