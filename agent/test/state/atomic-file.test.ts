import { spawn } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readJsonFile, writeFileAtomic, writeJsonFileAtomic } from '@outpost/shared';
import { agentStateStore } from '../../src/state/agent-state.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();
const atomicFileModule = fileURLToPath(new URL('../../../shared/src/files/atomic-file.ts', import.meta.url));

describe('writeFileAtomic', () => {
  it('writes the content with the given mode, creating the directory', async () => {
    const dir = await tempDir();
    const path = join(dir, 'config', 'credential');
    await writeFileAtomic(path, 'secret\n', 0o600);
    expect(await readFile(path, 'utf8')).toBe('secret\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'config'))).toEqual(['credential']);
  });

  it('replaces the previous content whole', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await writeJsonFileAtomic(path, { a: 'x'.repeat(10_000) });
    await writeJsonFileAtomic(path, { b: 1 });
    expect(await readJsonFile(path)).toEqual({ b: 1 });
  });

  it('is not confused by a temporary file a crash left behind', async () => {
    const dir = await tempDir();
    const path = join(dir, 'agent-state.json');
    await writeJsonFileAtomic(path, { osVersion: '1.0.0' });
    // what a crash between "write temp" and "rename" leaves: a half-written sibling
    await writeFile(join(dir, '.agent-state.json.deadbeef0000.tmp'), '{"osVersion": "1.0');
    expect(await readJsonFile(path)).toEqual({ osVersion: '1.0.0' });
    await writeJsonFileAtomic(path, { osVersion: '1.0.1' });
    expect(await readJsonFile(path)).toEqual({ osVersion: '1.0.1' });
  });

  it('leaves the previous content when a writer is killed mid-stream (kill -9)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'big.json');
    await writeJsonFileAtomic(path, { generation: 0, payload: '' });
    // A real process rewriting a large file over and over, killed without warning.
    const script = `
      import { writeJsonFileAtomic } from ${JSON.stringify(atomicFileModule)};
      const payload = 'x'.repeat(4 * 1024 * 1024);
      for (let generation = 1; ; generation++) {
        await writeJsonFileAtomic(${JSON.stringify(path)}, { generation, payload });
        process.stdout.write(generation + '\\n');
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => {
      let lines = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        lines += chunk.toString().split('\n').length - 1;
        if (lines >= 3) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const value = (await readJsonFile(path)) as { generation: number; payload: string };
    expect(value.generation).toBeGreaterThanOrEqual(3);
    expect(value.payload).toHaveLength(4 * 1024 * 1024);
  });
});

describe('readJsonFile', () => {
  it('reads undefined for a missing file and refuses a corrupt one clearly', async () => {
    const dir = await tempDir();
    expect(await readJsonFile(join(dir, 'missing.json'))).toBeUndefined();
    await writeFile(join(dir, 'bad.json'), '{oops');
    await expect(readJsonFile(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json is not valid JSON/);
  });
});

describe('agentStateStore', () => {
  it('merges patches and survives concurrent updates', async () => {
    const dir = await tempDir();
    const store = agentStateStore(join(dir, 'data', 'agent-state.json'));
    expect(await store.read()).toEqual({});
    await Promise.all([store.update({ osVersion: '1.0.0' }), store.update({ lastBootId: 'b1' })]);
    expect(await store.read()).toEqual({ osVersion: '1.0.0', lastBootId: 'b1' });
  });
});
