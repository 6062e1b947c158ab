import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What an idle agent loads is what it keeps in memory (issue 19: idle RSS within 1.4x a bare node). These read the
// bundle `npm run build` made (agent/bundle.mjs), as installed on devices, and follow its static imports from
// dist/main.js and the agent proper it loads at once.
const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** The files loaded at every start: main.js, the chunk it imports (cli), and their static imports, transitively. */
function startPath(): Map<string, string> {
  const loaded = new Map<string, string>();
  const main = readFileSync(join(DIST, 'main.js'), 'utf8');
  loaded.set('main.js', main);
  const pending = [...main.matchAll(/import\(\s*["']\.\/(chunks\/cli-[^"']+)["']\s*\)/g)].map((match) => match[1]!);
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (loaded.has(file)) continue;
    const text = readFileSync(join(DIST, file), 'utf8');
    loaded.set(file, text);
    for (const match of text.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) {
      pending.push(join(dirname(file), match[1]!));
    }
  }
  return loaded;
}

function loadedAtStart(marker: string): string[] {
  return [...startPath()].filter(([, text]) => text.includes(marker)).map(([file]) => file);
}

describe('the bundled agent at start (after npm run build)', () => {
  it('loads the agent proper', () => {
    expect([...startPath().keys()].some((file) => file.startsWith('chunks/cli-'))).toBe(true);
  });

  it('leaves the YAML library to the first device with a netplan', () => {
    const chunks = readdirSync(join(DIST, 'chunks')).map((name) => readFileSync(join(DIST, 'chunks', name), 'utf8'));
    expect(chunks.some((text) => text.includes('YAMLParseError'))).toBe(true);
    expect(loadedAtStart('YAMLParseError')).toEqual([]);
  });

  it("leaves out zod's error messages in other languages (German's among them)", () => {
    expect(loadedAtStart('erwartet')).toEqual([]);
  });

  it('leaves out the schemas of resources only the control plane serves', () => {
    expect(loadedAtStart('LimitPoolSchema')).toEqual([]);
  });

  it("has node-cron read the system zone's clock from Date, not Intl (agent/node-cron-local-time.mjs)", () => {
    expect(loadedAtStart('__localDateParts')).not.toEqual([]);
  });

  // every device runs these at start: execa (~1.2 MiB resident) stays out of an agent without containers or pods
  for (const name of ['containerEngineAvailable', 'execFileCommands']) {
    it(`runs ${name} at start without loading execa`, () => {
      const declaration = new RegExp(`function ${name}\\d*\\(`);
      const text = [...startPath().values()].find((chunk) => declaration.test(chunk)) ?? '';
      const body = new RegExp(`${declaration.source}[^)]*\\)\\{(.*?)\\}function `, 's').exec(text)?.[1];
      expect(body).toContain('execFile');
      expect(body).not.toContain('execa');
    });
  }

  it("turns zod's compiled parsers off before the agent proper builds a schema", () => {
    const main = readFileSync(join(DIST, 'main.js'), 'utf8');
    const jitless = main.search(/import\(\s*["']\.\/chunks\/zod-jitless-/);
    expect(jitless).toBeGreaterThan(-1);
    expect(jitless).toBeLessThan(main.search(/import\(\s*["']\.\/chunks\/cli-/));
  });
});
