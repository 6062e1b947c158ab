import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A TypeScript file of control-plane/src: its path there (with / separators) and its text. */
export interface SourceFile {
  file: string;
  text: string;
}

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

async function sourcePaths(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourcePaths(path);
      return Promise.resolve(entry.name.endsWith('.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

/** Every TypeScript file of control-plane/src, for the boundary tests that read the sources. */
export async function controlPlaneSources(): Promise<SourceFile[]> {
  const paths = await sourcePaths(SRC);
  return Promise.all(
    paths.map(async (path) => ({
      file: relative(SRC, path).split('\\').join('/'),
      text: await readFile(path, 'utf8'),
    })),
  );
}
