import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlPlaneSources } from './control-plane-sources.js';

/**
 * Only the engine uses the storage (issue 22): outside control-plane/src/resources, code imports from the storage
 * folder only its store-agnostic interfaces (the replicas' coordination, the presence record, the services' record
 * stores), never an implementation (storage/postgres, storage/sqlite, the factories). The server alone opens the
 * store (open-storage.ts). The cluster gets its coordination from the engine (ResourceEngine.coordination).
 */
const STORAGE = 'resources/storage/';
/** The storage's interfaces: files of types only, which any service may import. */
const INTERFACES = /^resources\/storage\/(coordination|presence-store|stores\/[a-z-]+-records)\.js$/;
/** What a file outside the engine may import from the storage folder besides its interfaces. */
const OPENERS: Readonly<Record<string, readonly string[]>> = {
  'server.ts': ['resources/storage/open-storage.js'],
};

/** The relative modules `text` imports (import and export … from, import()), as paths under control-plane/src. */
function importedModules(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => join(dirname(file), specifier).split('\\').join('/'));
}

/** The storage modules `file` (a path under control-plane/src) imports without being allowed to. */
function storageImplementationsImported(file: string, text: string): string[] {
  if (file.startsWith('resources/')) return [];
  const allowed = OPENERS[file] ?? [];
  return importedModules(file, text).filter(
    (module) => module.startsWith(STORAGE) && !INTERFACES.test(module) && !allowed.includes(module),
  );
}

describe('the storage interfaces', () => {
  it('outside the engine, nothing imports a storage implementation', async () => {
    const importing: [string, string[]][] = [];
    for (const { file, text } of await controlPlaneSources()) {
      const found = storageImplementationsImported(file, text);
      if (found.length > 0) importing.push([file, found]);
    }
    expect(importing, 'use the storage interfaces (resources/storage/coordination.ts) through the engine').toEqual([]);
  });

  it('would see a file that does (and lets the interfaces and the server through)', () => {
    const refused = [
      [
        'cluster/cluster-member.ts',
        "import { PgCoordination } from '../resources/storage/postgres/pg-coordination.js';",
      ],
      [
        'cluster/artifact-locks.ts',
        "import type { PgCoordination } from '../resources/storage/postgres/pg-coordination.js';",
      ],
      ['gateway/x.ts', "export { SqliteStorage } from '../resources/storage/sqlite/sqlite-storage.js';"],
      ['os/x.ts', "const m = await import('../resources/storage/open-coordination.js');"],
      ['devices/x.ts', "import { openStorage } from '../resources/storage/open-storage.js';"],
      ['server/x.ts', "import { openStores } from '../resources/storage/stores/open-stores.js';"],
    ];
    const allowed = [
      ['cluster/cluster-links.ts', "import type { Coordination } from '../resources/storage/coordination.js';"],
      ['cluster/routing.ts', "import type { LinkHolder } from '../resources/storage/presence-store.js';"],
      ['iam/api-key-store.ts', "import type { ApiKeyRecords } from '../resources/storage/stores/api-key-records.js';"],
      ['server.ts', "import { openStorage } from './resources/storage/open-storage.js';"],
      ['resources/resource-engine.ts', "import { SqliteStorage } from './storage/sqlite/sqlite-storage.js';"],
      ['cluster/leadership.ts', "import type { Logger } from '../server/logger.js';"],
    ];
    expect(refused.map(([file, text]) => storageImplementationsImported(file!, text!).length)).toEqual(
      refused.map(() => 1),
    );
    expect(allowed.map(([file, text]) => storageImplementationsImported(file!, text!))).toEqual(allowed.map(() => []));
  });
});
