import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { invalidArgument, unavailable } from '@outpost/shared';
import { payloadTooLarge } from '../server/http-errors.js';
import { artifactHolds } from './artifact-holds.js';
import type { ArtifactHolds } from './artifact-holds.js';

export interface StoredArtifact {
  sha256: string;
  size: number;
}

const SHA256 = /^[0-9a-f]{64}$/;

export interface ArtifactLimits {
  /** the largest artifact taken (413 beyond) */
  maxBytes: number;
  /** free bytes the data disk keeps for the database: an upload that would leave less is refused (503) */
  freeSpaceReserveBytes: number;
}

/** While an upload streams, free space is checked again after every this many bytes. */
const FREE_SPACE_CHECK_BYTES = 64 * 1024 * 1024;

/**
 * OS images stored by content: `<dir>/<sha256>`. An upload streams into a temporary file while hashing and is
 * renamed into place only when complete (and, when the uploader said which hash to expect, only when it matches),
 * so a reader never sees a partial artifact. Several replicas may share the directory (`--artifact-dir`): the
 * rename is atomic there too, and `holds` tells garbage collection which artifacts any of them is serving.
 */
export class ArtifactStore {
  constructor(
    private readonly dir: string,
    private readonly limits: ArtifactLimits,
    private readonly holds: ArtifactHolds = artifactHolds(),
  ) {}

  /** Marks `sha256` as being served until the release is called (garbage collection keeps it meanwhile). */
  hold(sha256: string): Promise<() => void> {
    return this.holds.hold(sha256);
  }

  /** Takes `sha256` for deletion unless it is being served: the release, or undefined. */
  claim(sha256: string): Promise<(() => void) | undefined> {
    return this.holds.claim(sha256);
  }

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

  /**
   * Stores `body`. `declaredBytes` (the request's Content-Length) lets a too large or unfitting upload be
   * refused before a byte is read; without it the limits apply as the bytes arrive.
   */
  async put(body: Readable, expectedSha256?: string, declaredBytes?: number): Promise<StoredArtifact> {
    if (expectedSha256 !== undefined && !SHA256.test(expectedSha256)) {
      throw invalidArgument('the expected SHA-256 must be 64 lowercase hex digits');
    }
    const { maxBytes } = this.limits;
    const tooLarge = () => payloadTooLarge(`an artifact may have at most ${maxBytes} bytes (--max-artifact-bytes)`);
    if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge();
    await mkdir(this.dir, { recursive: true });
    await this.ensureFreeSpace(declaredBytes ?? 0);
    const temp = join(this.dir, `.upload-${randomBytes(8).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    const ensureFreeSpace = (bytes: number) => this.ensureFreeSpace(bytes);
    // refusing part-way must leave the request open, so that its answer can still be sent
    const source = body.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
    const out = createWriteStream(temp);
    try {
      await pipeline(async function* () {
        let nextSpaceCheck = FREE_SPACE_CHECK_BYTES;
        for await (const chunk of source) {
          hash.update(chunk);
          size += chunk.length;
          if (size > maxBytes) throw tooLarge();
          if (size >= nextSpaceCheck) {
            await ensureFreeSpace(0);
            nextSpaceCheck += FREE_SPACE_CHECK_BYTES;
          }
          yield chunk;
        }
      }, out);
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
      // a refusal before the file was opened leaves its open under way: removed before it, the file would stay
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await rm(temp, { force: true });
    }
  }

  /** Refuses (UNAVAILABLE) when writing `bytes` more would leave less free space than the reserve. */
  private async ensureFreeSpace(bytes: number): Promise<void> {
    const fs = await statfs(this.dir);
    const free = fs.bavail * fs.bsize;
    const reserve = this.limits.freeSpaceReserveBytes;
    if (free - bytes < reserve) {
      throw unavailable(
        `not enough free space for this upload: ${free} bytes free, ${bytes} needed, ${reserve} kept in reserve (--free-space-reserve-bytes)`,
      );
    }
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(sha256), range);
  }

  /** The stored artifacts (not uploads in progress), each with the time it was stored. */
  async list(): Promise<(StoredArtifact & { storedAt: Date })[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const found = await Promise.all(
      names
        .filter((name) => SHA256.test(name))
        .map(async (sha256) => {
          const info = await stat(join(this.dir, sha256)).catch(() => undefined);
          return info && { sha256, size: info.size, storedAt: info.mtime };
        }),
    );
    return found.filter((artifact) => artifact !== undefined);
  }

  /** Deletes an artifact; false when there was none. Synchronous, so that a caller can check and delete at once. */
  removeSync(sha256: string): boolean {
    const path = this.pathOf(sha256);
    if (!statSync(path, { throwIfNoEntry: false })) return false;
    rmSync(path, { force: true });
    return true;
  }
}
