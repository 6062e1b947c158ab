import type { NetplanConfig } from './netplan-model.js';

/** The interface names a configuration touches, where it names them (an ethernet matched by MAC only has none). */
export function interfaceNames(config: NetplanConfig | undefined): string[] {
  if (config === undefined) return [];
  const names = new Set<string>();
  for (const ethernet of [...config.ethernets, ...config.wifis]) {
    const name = ethernet.match === undefined ? ethernet.id : ethernet.match.name;
    if (name !== undefined) names.add(name);
  }
  for (const entry of [...config.bonds, ...config.bridges, ...config.vlans]) names.add(entry.id);
  return [...names];
}
