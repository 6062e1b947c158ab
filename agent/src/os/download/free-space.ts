import { statfs } from 'node:fs/promises';

/** Bytes an unprivileged writer may still use on the filesystem holding `dir`. */
export type FreeSpace = (dir: string) => Promise<number>;

export const statfsFreeSpace: FreeSpace = async (dir) => {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
};
