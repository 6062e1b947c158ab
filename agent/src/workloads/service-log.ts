import { rename, stat } from 'node:fs/promises';

/** Log files of services are kept under 2 × this size: a larger one is moved to `<file>.1` before a start. */
export const MAX_SERVICE_LOG_BYTES = 10 * 1024 * 1024;

export async function rotateLogIfLarge(path: string, maxBytes = MAX_SERVICE_LOG_BYTES): Promise<void> {
  const size = await stat(path).then(
    (info) => info.size,
    () => 0,
  );
  if (size > maxBytes) await rename(path, `${path}.1`);
}
