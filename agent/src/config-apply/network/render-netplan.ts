import { stringify } from 'yaml';
import type {
  NetplanBond,
  NetplanBridge,
  NetplanCommon,
  NetplanConfig,
  NetplanEthernet,
  NetplanVlan,
  NetplanWifi,
} from './netplan-model.js';
import { NETPLAN_FILE } from './netplan-file.js';
import type { RenderedFile } from './rendered-files.js';

/** The checked model as netplan's own YAML, in one file readable by root only (netplan warns otherwise). */
export function renderNetplan(config: NetplanConfig): RenderedFile[] {
  return [
    {
      path: NETPLAN_FILE,
      content: `# Written by the Outpost agent from the device's netplanYamlConfig; do not edit.\n${stringify(netplanDocument(config))}`,
      mode: 0o600,
    },
  ];
}

type NetplanYaml = Record<string, unknown>;

/** netplan's keys for the model (only what the model holds: absent and empty settings are left out). */
export function netplanDocument(config: NetplanConfig): NetplanYaml {
  const section = <T extends NetplanCommon>(items: T[], render: (item: T) => NetplanYaml) =>
    items.length === 0 ? {} : Object.fromEntries(items.map((item) => [item.id, compact(render(item))]));
  const network: NetplanYaml = {
    version: 2,
    renderer: config.renderer,
    ethernets: section(config.ethernets, ethernet),
    wifis: section(config.wifis, wifi),
    bonds: section(config.bonds, bond),
    bridges: section(config.bridges, bridge),
    vlans: section(config.vlans, vlan),
  };
  return { network: compact(network) };
}

function common(settings: NetplanCommon): NetplanYaml {
  return {
    dhcp4: settings.dhcp4,
    dhcp6: settings.dhcp6,
    addresses: settings.addresses,
    gateway4: settings.gateway4,
    gateway6: settings.gateway6,
    routes: settings.routes.map((route) =>
      compact({ to: route.to, via: route.via, metric: route.metric, 'on-link': route.onLink }),
    ),
    nameservers:
      settings.nameservers === undefined
        ? undefined
        : compact({ addresses: settings.nameservers.addresses, search: settings.nameservers.search }),
    mtu: settings.mtu,
    optional: settings.optional,
    macaddress: settings.macaddress,
  };
}

const ethernet = (settings: NetplanEthernet): NetplanYaml => ({
  ...common(settings),
  match: settings.match === undefined ? undefined : compact({ ...settings.match }),
});

const wifi = (settings: NetplanWifi): NetplanYaml => ({
  ...ethernet(settings),
  'access-points': Object.fromEntries(
    settings.accessPoints.map((point) => [
      point.ssid,
      point.password === undefined ? {} : { password: point.password },
    ]),
  ),
});

const bond = (settings: NetplanBond): NetplanYaml => ({
  ...common(settings),
  interfaces: settings.interfaces,
  parameters: compact({
    mode: settings.parameters.mode,
    'mii-monitor-interval': settings.parameters.miiMonitorInterval,
    primary: settings.parameters.primary,
  }),
});

const bridge = (settings: NetplanBridge): NetplanYaml => ({
  ...common(settings),
  interfaces: settings.interfaces,
  parameters: compact({ stp: settings.parameters.stp }),
});

const vlan = (settings: NetplanVlan): NetplanYaml => ({
  ...common(settings),
  id: settings.vlanId,
  link: settings.link,
});

/** Leaves out undefined members, empty lists and empty mappings. */
function compact(document: NetplanYaml): NetplanYaml {
  return Object.fromEntries(
    Object.entries(document).filter(([, value]) => {
      if (value === undefined) return false;
      if (Array.isArray(value)) return value.length > 0;
      if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
      return true;
    }),
  );
}
