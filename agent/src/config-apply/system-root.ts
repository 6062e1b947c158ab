import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where the device's system files live: `/` on a real device, a folder for simulated devices and tests
 * (`--system-root` / DROPLET_SYSTEM_ROOT). Every file the agent writes for device configuration goes through it.
 */
export interface SystemRoot {
  /** the root folder, absolute */
  readonly root: string;
  /** true when the root is `/`: only then may the agent ask the real system (sshd -t, netplan apply) */
  readonly isRealRoot: boolean;
  /** resolves an absolute system path (e.g. `/etc/netplan/90-outpost.yaml`) under the root */
  path(systemPath: string): string;
}

export function systemRoot(root = '/'): SystemRoot {
  const absolute = resolve(root);
  return {
    root: absolute,
    isRealRoot: absolute === '/',
    path(systemPath) {
      if (!isAbsolute(systemPath)) throw new Error(`a system path must be absolute: ${systemPath}`);
      if (systemPath.split('/').includes('..')) throw new Error(`a system path may not contain '..': ${systemPath}`);
      return absolute === '/' ? systemPath : join(absolute, systemPath);
    },
  };
}
