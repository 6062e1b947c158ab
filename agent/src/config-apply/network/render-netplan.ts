import { stringify } from 'yaml';
import type { NetplanConfig } from './netplan-model.js';
import type { RenderedFile } from './rendered-files.js';

export const NETPLAN_FILE = '/etc/netplan/90-outpost.yaml';

/** The checked model as netplan's own YAML, in one file readable by root only (netplan warns otherwise). */
export function renderNetplan(config: NetplanConfig): RenderedFile[] {
  return [
    {
      path: NETPLAN_FILE,
      content: `# Written by the Outpost agent from the device's netplanYamlConfig; do not edit.\n${stringify(config)}`,
      mode: 0o600,
    },
  ];
}
