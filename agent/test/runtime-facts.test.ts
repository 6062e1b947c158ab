import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readAgentVersion, readBootId } from '../src/runtime-facts.js';

describe('runtime facts', () => {
  it("reads the agent's version from its package.json", async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await readAgentVersion()).toBe(manifest.version);
  });

  it('reads a boot id', async () => {
    expect(await readBootId()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
