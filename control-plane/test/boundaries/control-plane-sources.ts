import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A source file of a package's src/: its path there (with / separators) and its text. */
export interface SourceFile {
  file: string;
  text: string;
}

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

async function sourcePaths(dir: string, extensions: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourcePaths(path, extensions);
      return Promise.resolve(extensions.some((ext) => entry.name.endsWith(ext)) ? [path] : []);
    }),
  );
  return nested.flat();
}

async function sourcesUnder(dir: string, extensions: readonly string[]): Promise<SourceFile[]> {
  const paths = await sourcePaths(dir, extensions);
  return Promise.all(
    paths.map(async (path) => ({
      file: relative(dir, path).split('\\').join('/'),
      text: await readFile(path, 'utf8'),
    })),
  );
}

/** Every TypeScript file of control-plane/src, for the boundary tests that read the sources. */
export function controlPlaneSources(): Promise<SourceFile[]> {
  return sourcesUnder(SRC, ['.ts']);
}

/** Every TypeScript and JavaScript file of a package's src/ (`shared`, `agent`, `control-plane`). */
export function packageSources(pkg: 'shared' | 'agent' | 'control-plane'): Promise<SourceFile[]> {
  return sourcesUnder(join(REPO, pkg, 'src'), ['.ts', '.js', '.mjs']);
}
