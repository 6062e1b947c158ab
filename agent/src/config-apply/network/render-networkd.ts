import { isIP } from 'node:net';
import type { NetplanNetwork, Route } from './netplan-model.js';
import type { Rendered, RenderedFile } from './rendered-files.js';

export const NETWORKD_DIR = '/etc/systemd/network';
/**
 * systemd-networkd applies the first .network file (in lexical order) that matches an interface: the prefix sorts
 * Outpost's files before the image's own (e.g. 10-dhcp.network), so that they win for the interfaces they name.
 */
export const NETWORKD_PREFIX = '05-outpost-';

type Settings = NonNullable<NetplanNetwork['ethernets']>[string] &
  Partial<Pick<NonNullable<NetplanNetwork['vlans']>[string], 'id' | 'link'>>;

/** The same netplan model as systemd-networkd .network/.netdev files (wifis need netplan). */
export function renderNetworkd(network: NetplanNetwork): Rendered {
  if (Object.keys(network.wifis ?? {}).length > 0) {
    return { ok: false, error: 'wifis need netplan, which is not installed on this device' };
  }
  const memberOf = new Map<string, { kind: 'Bond' | 'Bridge'; id: string }>();
  for (const [id, bond] of Object.entries(network.bonds ?? {})) {
    for (const member of bond.interfaces ?? []) memberOf.set(member, { kind: 'Bond', id });
  }
  for (const [id, bridge] of Object.entries(network.bridges ?? {})) {
    for (const member of bridge.interfaces ?? []) memberOf.set(member, { kind: 'Bridge', id });
  }
  const vlansOn = new Map<string, string[]>();
  for (const [id, vlan] of Object.entries(network.vlans ?? {}))
    vlansOn.set(vlan.link, [...(vlansOn.get(vlan.link) ?? []), id]);

  const files: RenderedFile[] = [];
  const network_ = (id: string, settings: Settings, match: string[]): void => {
    const extra = [
      ...(memberOf.has(id) ? [`${memberOf.get(id)?.kind}=${memberOf.get(id)?.id}`] : []),
      ...(vlansOn.get(id) ?? []).map((vlan) => `VLAN=${vlan}`),
    ];
    files.push(file(`${id}.network`, networkFile(settings, match, extra)));
  };
  for (const [id, ethernet] of Object.entries(network.ethernets ?? {})) {
    const match =
      ethernet.match === undefined
        ? [`Name=${id}`]
        : [
            ...(ethernet.match.name === undefined ? [] : [`Name=${ethernet.match.name}`]),
            ...(ethernet.match.macaddress === undefined ? [] : [`MACAddress=${ethernet.match.macaddress}`]),
          ];
    network_(id, ethernet, match.length > 0 ? match : [`Name=${id}`]);
  }
  for (const [id, bond] of Object.entries(network.bonds ?? {})) {
    const parameters = bond.parameters ?? {};
    files.push(
      file(`${id}.netdev`, [
        '[NetDev]',
        `Name=${id}`,
        'Kind=bond',
        '',
        '[Bond]',
        ...(parameters.mode === undefined ? [] : [`Mode=${parameters.mode}`]),
        ...(parameters['mii-monitor-interval'] === undefined
          ? []
          : [`MIIMonitorSec=${parameters['mii-monitor-interval']}ms`]),
      ]),
    );
    network_(id, bond, [`Name=${id}`]);
  }
  for (const [id, bridge] of Object.entries(network.bridges ?? {})) {
    const stp = bridge.parameters?.stp;
    files.push(
      file(`${id}.netdev`, [
        '[NetDev]',
        `Name=${id}`,
        'Kind=bridge',
        ...(stp === undefined ? [] : ['', '[Bridge]', `STP=${yesNo(stp)}`]),
      ]),
    );
    network_(id, bridge, [`Name=${id}`]);
  }
  for (const [id, vlan] of Object.entries(network.vlans ?? {})) {
    files.push(file(`${id}.netdev`, ['[NetDev]', `Name=${id}`, 'Kind=vlan', '', '[VLAN]', `Id=${vlan.id}`]));
    network_(id, vlan, [`Name=${id}`]);
  }
  // a bond's `primary` is a setting of the member's .network
  for (const bond of Object.values(network.bonds ?? {})) {
    const primary = bond.parameters?.primary;
    const member = files.find((candidate) => candidate.path === `${NETWORKD_DIR}/${NETWORKD_PREFIX}${primary}.network`);
    if (member !== undefined) member.content = member.content.replace(/^(Bond=.*)$/m, '$1\nPrimarySlave=yes');
  }
  return { ok: true, files };
}

function networkFile(settings: Settings, match: string[], extra: string[]): string[] {
  const link = [
    ...(settings.mtu === undefined ? [] : [`MTUBytes=${settings.mtu}`]),
    ...(settings.macaddress === undefined ? [] : [`MACAddress=${settings.macaddress}`]),
    ...(settings.optional === true ? ['RequiredForOnline=no'] : []),
  ];
  const nameservers = settings.nameservers ?? {};
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
    ...(settings.addresses ?? []).map((address) => `Address=${address}`),
    ...(settings.gateway4 === undefined ? [] : [`Gateway=${settings.gateway4}`]),
    ...(settings.gateway6 === undefined ? [] : [`Gateway=${settings.gateway6}`]),
    ...(nameservers.addresses ?? []).map((address) => `DNS=${address}`),
    ...(nameservers.search === undefined || nameservers.search.length === 0
      ? []
      : [`Domains=${nameservers.search.join(' ')}`]),
    ...extra,
  ];
  for (const route of settings.routes ?? []) lines.push('', ...routeSection(route));
  return lines;
}

function routeSection(route: Route): string[] {
  const family = route.via === undefined ? 4 : isIP(route.via);
  const destination = route.to === 'default' ? (family === 6 ? '::/0' : '0.0.0.0/0') : route.to;
  return [
    '[Route]',
    `Destination=${destination}`,
    ...(route.via === undefined ? [] : [`Gateway=${route.via}`]),
    ...(route.metric === undefined ? [] : [`Metric=${route.metric}`]),
    ...(route['on-link'] === true ? ['GatewayOnLink=yes'] : []),
  ];
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

const dhcp = (v4: boolean, v6: boolean): string => (v4 && v6 ? 'yes' : v4 ? 'ipv4' : v6 ? 'ipv6' : 'no');

const file = (name: string, lines: string[]): RenderedFile => ({
  path: `${NETWORKD_DIR}/${NETWORKD_PREFIX}${name}`,
  content: `# Written by the Outpost agent from the device's netplanYamlConfig; do not edit.\n${lines.join('\n')}\n`,
  mode: 0o644,
});
