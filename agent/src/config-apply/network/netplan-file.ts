/** The one file Outpost writes under netplan's directory, and owns. */
export const NETPLAN_FILE = '/etc/netplan/90-outpost.yaml';
