import { networkInterfaces } from 'node:os';
import type { NetworkInterfaceInfo } from 'node:os';
import { listDir, readText, readValue } from '../sys-files.js';

export interface FingerprintSources {
  /** default /proc/self/mounts */
  mounts?: string;
  /** default /sys/block */
  sysBlock?: string;
  /** default node's os.networkInterfaces() */
  interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
}

/**
 * A cheap summary of what the inventory shows that can change while the agent runs: the mounted file systems
 * (source, mount point, type, read-only or not), the block devices and their sizes, and the network interfaces
 * with their addresses. Two readings differ when something was mounted, plugged in, resized or re-addressed;
 * no process is started and nothing is parsed beyond a few small files.
 */
export async function readInventoryFingerprint(sources: FingerprintSources = {}): Promise<string> {
  const sysBlock = sources.sysBlock ?? '/sys/block';
  const [mounts, blocks] = await Promise.all([
    readText(sources.mounts ?? '/proc/self/mounts'),
    listDir(sysBlock).then((names) =>
      Promise.all(names.sort().map(async (name) => `${name}=${await readValue(`${sysBlock}/${name}/size`)}`)),
    ),
  ]);
  const interfaces = Object.entries((sources.interfaces ?? networkInterfaces)())
    .map(([name, addresses = []]) => `${name}=${addresses.map((a) => `${a.address}/${a.mac}`).join(',')}`)
    .sort();
  return [mountsSummary(mounts ?? ''), blocks.join(' '), interfaces.join(' ')].join('\n');
}

/** fstab-style lines: source, mount point, type and whether it is read-only (not the other options). */
function mountsSummary(text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [source = '', mount = '', type = '', options = ''] = line.split(' ');
      return `${source} ${mount} ${type} ${options.split(',').includes('ro') ? 'ro' : 'rw'}`;
    })
    .sort()
    .join(' ');
}
