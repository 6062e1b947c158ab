/**
 * A netplan configuration as Outpost applies it (the subset the agent renders for netplan and for
 * systemd-networkd alike): checked, keys in camelCase.
 */

/** The only renderer Outpost renders for (its fallback writes systemd-networkd files). */
export const NETPLAN_RENDERERS = ['networkd'] as const;
export type NetplanRenderer = (typeof NETPLAN_RENDERERS)[number];

export interface NetplanRoute {
  /** a CIDR block or "default" */
  to: string;
  via?: string;
  metric?: number;
  onLink?: boolean;
}

export interface NetplanNameservers {
  addresses: string[];
  search: string[];
}

/** What every kind of interface may say. */
export interface NetplanCommon {
  /** the key under ethernets/wifis/... (the interface name unless a physical one has `match`) */
  id: string;
  dhcp4?: boolean;
  dhcp6?: boolean;
  /** CIDR addresses, IPv4 and IPv6 */
  addresses: string[];
  gateway4?: string;
  gateway6?: string;
  routes: NetplanRoute[];
  nameservers?: NetplanNameservers;
  mtu?: number;
  optional?: boolean;
  macaddress?: string;
}

export interface NetplanMatch {
  name?: string;
  macaddress?: string;
}

export interface NetplanEthernet extends NetplanCommon {
  match?: NetplanMatch;
}

export interface NetplanAccessPoint {
  ssid: string;
  /** WPA passphrase, 8 to 63 characters; absent for an open network */
  password?: string;
}

export interface NetplanWifi extends NetplanEthernet {
  accessPoints: NetplanAccessPoint[];
}

export const BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
] as const;

export interface NetplanBond extends NetplanCommon {
  /** ids of ethernets */
  interfaces: string[];
  parameters: {
    mode?: (typeof BOND_MODES)[number];
    /** milliseconds */
    miiMonitorInterval?: number;
    primary?: string;
  };
}

export interface NetplanBridge extends NetplanCommon {
  /** ids of ethernets, bonds or vlans */
  interfaces: string[];
  parameters: { stp?: boolean };
}

export interface NetplanVlan extends NetplanCommon {
  /** the VLAN id, 0..4094 */
  vlanId: number;
  /** id of the ethernet, bond or bridge it rides on */
  link: string;
}

export interface NetplanConfig {
  renderer?: NetplanRenderer;
  ethernets: NetplanEthernet[];
  wifis: NetplanWifi[];
  bonds: NetplanBond[];
  bridges: NetplanBridge[];
  vlans: NetplanVlan[];
}
