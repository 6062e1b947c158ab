import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { invalidArgument } from '@outpost/shared';

export interface StoredArtifact {
  sha256: string;
  size: number;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * OS images stored by content: `<dir>/<sha256>`. An upload streams into a temporary file while hashing and is
 * renamed into place only when complete (and, when the uploader said which hash to expect, only when it matches),
 * so a reader never sees a partial artifact.
 */
export class ArtifactStore {
  constructor(private readonly dir: string) {}

  pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw invalidArgument(`"${sha256}" is not a SHA-256 digest`);
    return join(this.dir, sha256);
  }

  async stat(sha256: string): Promise<StoredArtifact | undefined> {
    try {
      const info = await stat(this.pathOf(sha256));
      return { sha256, size: info.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  statSync(sha256: string): StoredArtifact | undefined {
    const info = statSync(this.pathOf(sha256), { throwIfNoEntry: false });
    return info && { sha256, size: info.size };
  }

  async put(body: Readable, expectedSha256?: string): Promise<StoredArtifact> {
    if (expectedSha256 !== undefined && !SHA256.test(expectedSha256)) {
      throw invalidArgument('the expected SHA-256 must be 64 lowercase hex digits');
    }
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `.upload-${randomBytes(8).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    try {
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(temp),
      );
      const sha256 = hash.digest('hex');
      if (expectedSha256 !== undefined && sha256 !== expectedSha256) {
        throw invalidArgument(`upload corrupted: its SHA-256 is ${sha256}, expected ${expectedSha256}`);
      }
      if (size === 0) throw invalidArgument('an artifact cannot be empty');
      const file = await open(temp, 'r');
      await file.sync();
      await file.close();
      await rename(temp, this.pathOf(sha256));
      return { sha256, size };
    } finally {
      await rm(temp, { force: true });
    }
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(sha256), range);
  }
}
