import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The driver boundary (issue 22): outside the resource engine's storage (control-plane/src/resources/storage) no
 * source loads better-sqlite3, pg or pg's own packages, in any form. eslint.config.js enforces it; these probes
 * lint samples as if they lived at a given path, so a rule that stops biting fails here.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: REPO });

const DRIVER_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax']);
const DRIVER_MESSAGE = /only the resource engine's storage/;

async function driverProblems(code: string, path: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO}${path}` });
  if (result === undefined) throw new Error(`eslint returned no result for ${path}`);
  return result.messages.filter(
    (message) => message.ruleId !== null && DRIVER_RULES.has(message.ruleId) && DRIVER_MESSAGE.test(message.message),
  ).length;
}

const LOADING_A_DRIVER: readonly string[] = [
  "import Database from 'better-sqlite3';\nexport const d = Database;\n",
  "import type { Database } from 'better-sqlite3';\nexport type D = Database;\n",
  "import Client from 'pg/lib/client.js';\nexport const c = Client;\n",
  "import Pool from 'pg-pool';\nexport const p = Pool;\n",
  "export { Pool } from 'pg';\n",
  "export * from 'pg';\n",
  "export const pg = await import('pg');\n",
  'export const pg = await import(`pg`);\n',
  "import { createRequire } from 'node:module';\nexport const pg: unknown = createRequire(import.meta.url)('pg');\n",
  "import { createRequire } from 'node:module';\nexport const f = createRequire(import.meta.url).resolve('better-sqlite3');\n",
  "export const f = import.meta.resolve('better-sqlite3/package.json');\n",
  "const DRIVER = 'pg';\nexport const d = DRIVER;\n",
];

const OUTSIDE_THE_STORAGE = [
  'control-plane/src/devices/probe.ts',
  'control-plane/src/cluster/probe.ts',
  'agent/src/os/probe.ts',
  'shared/src/probe.ts',
];

describe('the driver boundary', () => {
  it.each(OUTSIDE_THE_STORAGE)('refuses every way of loading a driver in %s', async (path) => {
    const refused = await Promise.all(LOADING_A_DRIVER.map((code) => driverProblems(code, path)));
    expect(refused).toEqual(LOADING_A_DRIVER.map(() => 1));
  });

  it("allows them in the engine's storage", async () => {
    const path = 'control-plane/src/resources/storage/sqlite/probe.ts';
    const refused = await Promise.all(LOADING_A_DRIVER.map((code) => driverProblems(code, path)));
    expect(refused).toEqual(LOADING_A_DRIVER.map(() => 0));
  });

  it('lets through what merely resembles a driver', async () => {
    const code =
      "import { createRequire } from 'node:module';\n" +
      "export const v: unknown = createRequire(import.meta.url)('../../package.json');\n" +
      "export const words = ['pgx', 'pg is the driver', 'better-sqlite3 is the other'];\n";
    expect(await driverProblems(code, 'control-plane/src/devices/probe.ts')).toBe(0);
  });
});
