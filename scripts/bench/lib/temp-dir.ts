import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `fn` with a fresh temporary folder and removes the folder afterwards, also when `fn` throws or the
 * process is interrupted (Ctrl-C / SIGTERM) meanwhile.
 */
export async function withTempDir<R>(prefix: string, fn: (dir: string) => Promise<R>): Promise<R> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  const interrupted = (signal: NodeJS.Signals): void => {
    remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await fn(dir);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    remove();
  }
}
