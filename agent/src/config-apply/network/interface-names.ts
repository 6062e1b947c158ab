import type { NetplanConfig } from './netplan-model.js';

/** The interface names a configuration touches, where it names them (an ethernet matched by MAC only has none). */
export function interfaceNames(config: NetplanConfig | undefined): string[] {
  if (config === undefined) return [];
  const { network } = config;
  const names = new Set<string>();
  for (const [id, ethernet] of Object.entries({ ...network.ethernets, ...network.wifis })) {
    const name = ethernet.match === undefined ? id : ethernet.match.name;
    if (name !== undefined) names.add(name);
  }
  for (const entries of [network.bonds, network.bridges, network.vlans]) {
    for (const id of Object.keys(entries ?? {})) names.add(id);
  }
  return [...names];
}
