import { readdir } from 'node:fs/promises';
import { pathExists } from '@outpost/shared';
import type { SystemCommands } from '../command-runner.js';
import { executableUnder } from '../system-file.js';
import type { SystemRoot } from '../system-root.js';
import type { NetplanConfig } from './netplan-model.js';
import { NETPLAN_FILE } from './netplan-file.js';
import { NETWORKD_DIR, NETWORKD_PREFIX, renderNetworkd } from './render-networkd.js';
import type { Rendered } from './rendered-files.js';

/**
 * How the device's network is configured: through netplan where it is installed, else systemd-networkd directly.
 * Each backend knows the files it owns (Outpost's, by name) and the commands that make the system take them up.
 */
export interface NetworkBackend {
  readonly name: 'netplan' | 'networkd';
  /** async: the netplan renderer and its YAML library are loaded only when a device has a netplan to write */
  render(config: NetplanConfig | undefined): Promise<Rendered>;
  /** the system paths of the files Outpost wrote that exist now */
  ownedFiles(): Promise<string[]>;
  /** makes the system use the files now; an error message when it refused */
  apply(interfaces: string[]): Promise<ApplyOutcome>;
}

export type ApplyOutcome = { ok: true; note?: string } | { ok: false; error: string };

const NETPLAN_PATHS = ['/usr/sbin/netplan', '/usr/bin/netplan', '/sbin/netplan'];
const NETWORKCTL_PATHS = ['/usr/bin/networkctl', '/bin/networkctl'];

/**
 * Picks the backend from what is installed under the system root. Commands are run from the system root too, so a
 * simulated device (--system-root a folder) never reconfigures the machine it runs on: it runs what its folder holds
 * (a test's stand-in) or nothing, and says so.
 */
export async function networkBackend(root: SystemRoot, commands: SystemCommands): Promise<NetworkBackend> {
  const netplan = await executableUnder(root, NETPLAN_PATHS);
  if (netplan !== undefined) {
    return {
      name: 'netplan',
      render: async (config) => {
        if (config === undefined) return { ok: true, files: [] };
        const { renderNetplan } = await import('./render-netplan.js');
        return { ok: true, files: renderNetplan(config) };
      },
      ownedFiles: async () => ((await pathExists(root.path(NETPLAN_FILE))) ? [NETPLAN_FILE] : []),
      apply: async () => commandOutcome(await commands.run([netplan, 'apply']), 'netplan apply'),
    };
  }
  return {
    name: 'networkd',
    render: async (config) => (config === undefined ? { ok: true, files: [] } : renderNetworkd(config)),
    ownedFiles: async () => {
      let names: string[];
      try {
        names = await readdir(root.path(NETWORKD_DIR));
      } catch {
        return [];
      }
      return names.filter((name) => name.startsWith(NETWORKD_PREFIX)).map((name) => `${NETWORKD_DIR}/${name}`);
    },
    apply: async (interfaces) => {
      const networkctl = await executableUnder(root, NETWORKCTL_PATHS);
      if (networkctl === undefined) {
        return { ok: true, note: 'networkctl was not run: it is not installed under the system root' };
      }
      const reload = commandOutcome(await commands.run([networkctl, 'reload']), 'networkctl reload');
      if (!reload.ok) return reload;
      // reload reconfigures the interfaces whose files changed; reconfigure also those whose files went away
      const present = [];
      for (const name of interfaces) if (await pathExists(root.path(`/sys/class/net/${name}`))) present.push(name);
      if (present.length === 0) return reload;
      return commandOutcome(await commands.run([networkctl, 'reconfigure', ...present]), 'networkctl reconfigure');
    },
  };
}

function commandOutcome(result: { exitCode: number; stderr: string }, what: string): ApplyOutcome {
  if (result.exitCode === 0) return { ok: true };
  const detail = result.stderr.trim().split('\n').slice(-5).join('\n');
  return { ok: false, error: `${what} failed (exit code ${result.exitCode})${detail === '' ? '' : `: ${detail}`}` };
}
