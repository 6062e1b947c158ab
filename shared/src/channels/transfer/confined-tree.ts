import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { failedPrecondition } from '../../errors/api-error.js';
import { fsError } from './tree-sender.js';

/**
 * The directories below the root of a transfer, made and checked one component at a time without following
 * symbolic links: whatever already exists below the root (a link to `~/.ssh`, to `/etc`), no entry a peer sends
 * lands outside it. The root itself is where the receiving side's own path rules put it (links in that path are
 * its owner's choice).
 */
export class ConfinedTree {
  /** directories below the root already checked, as '/'-joined segments */
  private readonly checked = new Set<string>();
  private realRoot: string | undefined;

  constructor(private readonly root: string) {}

  /**
   * Makes sure that `segments` below the root is a real directory inside it (missing components are created, the
   * last one with `mode`) and answers its path; refuses a component that is a symbolic link or not a directory,
   * and a directory whose resolved path is not the one expected below the root's.
   */
  async directory(segments: readonly string[], mode = 0o777): Promise<string> {
    this.realRoot ??= await realpath(this.root).catch((err: unknown) => {
      throw fsError(err, this.root);
    });
    let path = this.root;
    for (let i = 0; i < segments.length; i += 1) {
      path = join(path, segments[i]!);
      const relative = segments.slice(0, i + 1).join('/');
      if (this.checked.has(relative)) continue;
      await this.makeComponent(path, i === segments.length - 1 ? mode : 0o777);
      const resolved = await realpath(path).catch((err: unknown) => {
        throw fsError(err, path);
      });
      if (resolved !== join(this.realRoot, ...segments.slice(0, i + 1))) {
        throw failedPrecondition(`${path} resolves to ${resolved}, outside ${this.root}`);
      }
      this.checked.add(relative);
    }
    return path;
  }

  /** The path of a file `segments` below the root (its directory is checked with `directory`). */
  fileIn(segments: readonly string[]): string {
    return join(this.root, ...segments);
  }

  private async makeComponent(path: string, mode: number): Promise<void> {
    // mkdir without `recursive` never follows a link in the last component: it fails with EEXIST
    await mkdir(path, { mode }).catch((err: unknown) => {
      if (codeOf(err) !== 'EEXIST') throw fsError(err, path);
    });
    const info = await lstat(path).catch((err: unknown) => {
      throw fsError(err, path);
    });
    if (info.isSymbolicLink())
      throw failedPrecondition(`${path} is a symbolic link: a transfer never writes through one`);
    if (!info.isDirectory()) throw failedPrecondition(`${path} exists and is not a directory`);
  }
}

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;
