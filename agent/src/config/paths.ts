import { join } from 'node:path';

/** Where the agent keeps its files under {device_root} (config and data survive upgrades). */
export interface AgentPaths {
  deviceRoot: string;
  configDir: string;
  /** {device_root}/config/droplet.json */
  configFile: string;
  /** {device_root}/config/credential, mode 0600 */
  credentialFile: string;
  /** {device_root}/config/identity: the device's ed25519 key pair (files of mode 0600) */
  identityDir: string;
  dataDir: string;
  /** {device_root}/data/agent-state.json */
  stateFile: string;
  /** {device_root}/data/desired-device.json: the last spec received, to converge on while offline */
  desiredDeviceFile: string;
  /** {device_root}/data/os-update.json: the A/B upgrade's persisted progress */
  osProgressFile: string;
}

export function agentPaths(deviceRoot: string): AgentPaths {
  const configDir = join(deviceRoot, 'config');
  const dataDir = join(deviceRoot, 'data');
  return {
    deviceRoot,
    configDir,
    configFile: join(configDir, 'droplet.json'),
    credentialFile: join(configDir, 'credential'),
    identityDir: join(configDir, 'identity'),
    dataDir,
    stateFile: join(dataDir, 'agent-state.json'),
    desiredDeviceFile: join(dataDir, 'desired-device.json'),
    osProgressFile: join(dataDir, 'os-update.json'),
  };
}
