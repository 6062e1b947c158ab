import { isIP } from 'node:net';
import type { NetplanCommon, NetplanConfig, NetplanRoute } from './netplan-model.js';
import type { Rendered, RenderedFile } from './rendered-files.js';

export const NETWORKD_DIR = '/etc/systemd/network';
/**
 * systemd-networkd applies the first .network file (in lexical order) that matches an interface: the prefix sorts
 * Outpost's files before the image's own (e.g. 10-dhcp.network), so that they win for the interfaces they name.
 */
export const NETWORKD_PREFIX = '05-outpost-';

/** The same netplan model as systemd-networkd .network/.netdev files (wifis need netplan). */
export function renderNetworkd(config: NetplanConfig): Rendered {
  if (config.wifis.length > 0) {
    return { ok: false, error: 'wifis need netplan, which is not installed on this device' };
  }
  const memberOf = new Map<string, { kind: 'Bond' | 'Bridge'; id: string }>();
  for (const bond of config.bonds) {
    for (const member of bond.interfaces) memberOf.set(member, { kind: 'Bond', id: bond.id });
  }
  for (const bridge of config.bridges) {
    for (const member of bridge.interfaces) memberOf.set(member, { kind: 'Bridge', id: bridge.id });
  }
  const vlansOn = new Map<string, string[]>();
  for (const vlan of config.vlans) vlansOn.set(vlan.link, [...(vlansOn.get(vlan.link) ?? []), vlan.id]);

  const files: RenderedFile[] = [];
  const network_ = (settings: NetplanCommon, match: string[]): void => {
    const member = memberOf.get(settings.id);
    const extra = [
      ...(member === undefined ? [] : [`${member.kind}=${member.id}`]),
      ...(vlansOn.get(settings.id) ?? []).map((vlan) => `VLAN=${vlan}`),
    ];
    files.push(file(`${settings.id}.network`, networkFile(settings, match, extra)));
  };
  for (const ethernet of config.ethernets) {
    const match =
      ethernet.match === undefined
        ? [`Name=${ethernet.id}`]
        : [
            ...(ethernet.match.name === undefined ? [] : [`Name=${ethernet.match.name}`]),
            ...(ethernet.match.macaddress === undefined ? [] : [`MACAddress=${ethernet.match.macaddress}`]),
          ];
    network_(ethernet, match.length > 0 ? match : [`Name=${ethernet.id}`]);
  }
  for (const bond of config.bonds) {
    const { parameters } = bond;
    files.push(
      file(`${bond.id}.netdev`, [
        '[NetDev]',
        `Name=${bond.id}`,
        'Kind=bond',
        '',
        '[Bond]',
        ...(parameters.mode === undefined ? [] : [`Mode=${parameters.mode}`]),
        ...(parameters.miiMonitorInterval === undefined ? [] : [`MIIMonitorSec=${parameters.miiMonitorInterval}ms`]),
      ]),
    );
    network_(bond, [`Name=${bond.id}`]);
  }
  for (const bridge of config.bridges) {
    const { stp } = bridge.parameters;
    files.push(
      file(`${bridge.id}.netdev`, [
        '[NetDev]',
        `Name=${bridge.id}`,
        'Kind=bridge',
        ...(stp === undefined ? [] : ['', '[Bridge]', `STP=${yesNo(stp)}`]),
      ]),
    );
    network_(bridge, [`Name=${bridge.id}`]);
  }
  for (const vlan of config.vlans) {
    files.push(
      file(`${vlan.id}.netdev`, ['[NetDev]', `Name=${vlan.id}`, 'Kind=vlan', '', '[VLAN]', `Id=${vlan.vlanId}`]),
    );
    network_(vlan, [`Name=${vlan.id}`]);
  }
  // a bond's `primary` is a setting of the member's .network
  for (const bond of config.bonds) {
    const primary = bond.parameters.primary;
    const member = files.find((candidate) => candidate.path === `${NETWORKD_DIR}/${NETWORKD_PREFIX}${primary}.network`);
    if (member !== undefined) member.content = member.content.replace(/^(Bond=.*)$/m, '$1\nPrimarySlave=yes');
  }
  return { ok: true, files };
}

function networkFile(settings: NetplanCommon, match: string[], extra: string[]): string[] {
  const link = [
    ...(settings.mtu === undefined ? [] : [`MTUBytes=${settings.mtu}`]),
    ...(settings.macaddress === undefined ? [] : [`MACAddress=${settings.macaddress}`]),
    ...(settings.optional === true ? ['RequiredForOnline=no'] : []),
  ];
  const nameservers = settings.nameservers ?? { addresses: [], search: [] };
  const lines = [
    '[Match]',
    ...match,
    ...(link.length > 0 ? ['', '[Link]', ...link] : []),
    '',
    '[Network]',
    `DHCP=${dhcp(settings.dhcp4 === true, settings.dhcp6 === true)}`,
    // netplan's default: no IPv6 router advertisements unless dhcp6 (keeps both renderers equal)
    `IPv6AcceptRA=${yesNo(settings.dhcp6 === true)}`,
    'LinkLocalAddressing=ipv6',
    ...settings.addresses.map((address) => `Address=${address}`),
    ...(settings.gateway4 === undefined ? [] : [`Gateway=${settings.gateway4}`]),
    ...(settings.gateway6 === undefined ? [] : [`Gateway=${settings.gateway6}`]),
    ...nameservers.addresses.map((address) => `DNS=${address}`),
    ...(nameservers.search.length === 0 ? [] : [`Domains=${nameservers.search.join(' ')}`]),
    ...extra,
  ];
  for (const route of settings.routes) lines.push('', ...routeSection(route));
  return lines;
}

function routeSection(route: NetplanRoute): string[] {
  const family = route.via === undefined ? 4 : isIP(route.via);
  const destination = route.to === 'default' ? (family === 6 ? '::/0' : '0.0.0.0/0') : route.to;
  return [
    '[Route]',
    `Destination=${destination}`,
    ...(route.via === undefined ? [] : [`Gateway=${route.via}`]),
    ...(route.metric === undefined ? [] : [`Metric=${route.metric}`]),
    ...(route.onLink === true ? ['GatewayOnLink=yes'] : []),
  ];
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

const dhcp = (v4: boolean, v6: boolean): string => (v4 && v6 ? 'yes' : v4 ? 'ipv4' : v6 ? 'ipv6' : 'no');

const file = (name: string, lines: string[]): RenderedFile => ({
  path: `${NETWORKD_DIR}/${NETWORKD_PREFIX}${name}`,
  content: `# Written by the Outpost agent from the device's netplanYamlConfig; do not edit.\n${lines.join('\n')}\n`,
  mode: 0o644,
});
