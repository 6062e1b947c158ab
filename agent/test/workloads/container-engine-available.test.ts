import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { containerEngineAvailable } from '../../src/workloads/container-runtime.js';

// Every device asks at start whether docker or podman answers; fake engines on PATH answer here.
describe('containerEngineAvailable', () => {
  let bin: string;
  const originalPath = process.env.PATH;

  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'container-engine-'));
    process.env.PATH = `${bin}:${originalPath ?? ''}`;
  });
  afterEach(() => {
    process.env.PATH = originalPath;
    rmSync(bin, { recursive: true, force: true });
  });

  const fakeEngine = (name: string, script: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, name), 0o755);
  };

  it('is true when `<engine> info` exits 0, and asks for it in JSON', async () => {
    fakeEngine('docker', `echo "$@" > "${bin}/asked"; echo '{"ServerVersion":"27.0"}'`);
    expect(await containerEngineAvailable('docker')).toBe(true);
    expect(readFileSync(join(bin, 'asked'), 'utf8').trim()).toBe('info --format {{json .}}');
  });

  it('is false when the engine answers with a failure (no daemon)', async () => {
    fakeEngine('podman', 'echo "Cannot connect to the daemon" >&2; exit 1');
    expect(await containerEngineAvailable('podman')).toBe(false);
  });

  it('is false when the engine is not installed', async () => {
    process.env.PATH = bin;
    expect(await containerEngineAvailable('podman')).toBe(false);
  });
});
