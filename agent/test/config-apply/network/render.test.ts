import { describe, expect, it } from 'vitest';
import { parseNetplan } from '../../../src/config-apply/network/netplan-model.js';
import type { NetplanConfig } from '../../../src/config-apply/network/netplan-model.js';
import { renderNetplan } from '../../../src/config-apply/network/render-netplan.js';
import { renderNetworkd } from '../../../src/config-apply/network/render-networkd.js';

const model = (yaml: string): NetplanConfig => {
  const parsed = parseNetplan(yaml);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
};

const contentOf = (files: { path: string; content: string }[], path: string): string => {
  const file = files.find((candidate) => candidate.path === path);
  if (file === undefined) throw new Error(`no ${path} among ${files.map((f) => f.path).join(', ')}`);
  return file.content;
};

const STATIC = `
network:
  version: 2
  ethernets:
    enp0s2:
      dhcp4: false
      addresses: [10.0.2.15/24, 10.0.2.16/24]
      routes:
        - to: default
          via: 10.0.2.2
        - to: 192.168.9.0/24
          via: 10.0.2.3
          metric: 50
      nameservers:
        addresses: [10.0.2.3, "fd00::3"]
        search: [example.org]
`;

describe('netplan model', () => {
  it('accepts the supported subset', () => {
    expect(model(STATIC).ethernets.find((e) => e.id === 'enp0s2')?.addresses).toEqual(['10.0.2.15/24', '10.0.2.16/24']);
  });

  it.each([
    ['network: [', 'netplanYamlConfig is not valid YAML'],
    ['network: {version: 1}', 'netplanYamlConfig.network.version: only version 2 is supported'],
    [
      'network: {version: 2, ethernets: {eth0: {addresses: [10.0.0.1]}}}',
      'netplanYamlConfig.network.ethernets.eth0.addresses[0]: "10.0.0.1" is not a CIDR address',
    ],
    ['network: {version: 2, ethernets: {eth0: {addresses: [10.0.0.1/33]}}}', 'ethernets.eth0.addresses[0]'],
    [
      'network: {version: 2, ethernets: {eth0: {nameservers: {addresses: [not-an-ip]}}}}',
      'ethernets.eth0.nameservers.addresses[0]: "not-an-ip" is not an IP address',
    ],
    ['network: {version: 2, ethernets: {eth0: {dhcp4: "yes please"}}}', 'ethernets.eth0.dhcp4'],
    ['network: {version: 2, ethernets: {eth0: {wakeonlan: true}}}', 'ethernets.eth0'],
    ['network: {version: 2, ethernets: {"eth0\\nDNS=1.1.1.1": {}}}', 'netplanYamlConfig.network.ethernets'],
    [
      'network: {version: 2, vlans: {v10: {id: 10, link: eth9}}}',
      'netplanYamlConfig.network.vlans.v10.link: "eth9" is not defined',
    ],
    [
      'network: {version: 2, ethernets: {e1: {}}, bonds: {b0: {interfaces: [e1]}}, bridges: {br0: {interfaces: [e1]}}}',
      '"e1" is already an interface of b0',
    ],
  ])('refuses %s naming the path', (yaml, error) => {
    const parsed = parseNetplan(yaml);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });
});

describe('netplan renderer', () => {
  it('writes the checked model as netplan YAML, root-only', () => {
    const [file] = renderNetplan(model(STATIC));
    expect(file?.path).toBe('/etc/netplan/90-outpost.yaml');
    expect(file?.mode).toBe(0o600);
    // netplan reads back exactly the model it was rendered from
    expect(parseNetplan(file?.content ?? '')).toEqual({ ok: true, config: model(STATIC) });
  });
});

describe('systemd-networkd renderer', () => {
  it('renders addresses, routes, nameservers and dhcp in a file sorting before the image files', () => {
    const rendered = renderNetworkd(model(STATIC));
    if (!rendered.ok) throw new Error(rendered.error);
    expect(rendered.files.map((file) => file.path)).toEqual(['/etc/systemd/network/05-outpost-enp0s2.network']);
    const content = contentOf(rendered.files, '/etc/systemd/network/05-outpost-enp0s2.network');
    expect(content).toContain('[Match]\nName=enp0s2\n');
    expect(content).toContain('DHCP=no\n');
    expect(content).toContain('Address=10.0.2.15/24\nAddress=10.0.2.16/24\n');
    expect(content).toContain('DNS=10.0.2.3\nDNS=fd00::3\nDomains=example.org\n');
    expect(content).toContain('[Route]\nDestination=0.0.0.0/0\nGateway=10.0.2.2\n');
    expect(content).toContain('[Route]\nDestination=192.168.9.0/24\nGateway=10.0.2.3\nMetric=50\n');
  });

  it('renders bonds, bridges and vlans as .netdev files and ties their members', () => {
    const rendered = renderNetworkd(
      model(`
network:
  version: 2
  ethernets:
    e1: {}
    e2: {match: {macaddress: "52:54:00:12:34:56"}}
    e3: {dhcp4: true, dhcp6: true, mtu: 9000}
  bonds:
    bond0:
      interfaces: [e1, e2]
      parameters: {mode: active-backup, mii-monitor-interval: 100, primary: e1}
  bridges:
    br0: {interfaces: [bond0], addresses: [192.168.5.1/24], parameters: {stp: false}}
  vlans:
    vlan10: {id: 10, link: e3, addresses: ["fd00:10::1/64"], gateway6: "fd00:10::ffff"}
`),
    );
    if (!rendered.ok) throw new Error(rendered.error);
    const at = (name: string): string => contentOf(rendered.files, `/etc/systemd/network/05-outpost-${name}`);
    expect(at('e1.network')).toContain('Bond=bond0\nPrimarySlave=yes');
    expect(at('e2.network')).toContain('[Match]\nMACAddress=52:54:00:12:34:56\n');
    expect(at('e2.network')).toContain('Bond=bond0');
    expect(at('e3.network')).toContain('[Link]\nMTUBytes=9000\n');
    expect(at('e3.network')).toContain('DHCP=yes\n');
    expect(at('e3.network')).toContain('VLAN=vlan10');
    expect(at('bond0.netdev')).toContain('Kind=bond\n\n[Bond]\nMode=active-backup\nMIIMonitorSec=100ms\n');
    expect(at('bond0.network')).toContain('Bridge=br0');
    expect(at('br0.netdev')).toContain('Kind=bridge\n\n[Bridge]\nSTP=no\n');
    expect(at('br0.network')).toContain('Address=192.168.5.1/24');
    expect(at('vlan10.netdev')).toContain('Kind=vlan\n\n[VLAN]\nId=10\n');
    expect(at('vlan10.network')).toContain('Gateway=fd00:10::ffff');
  });

  it('refuses wifis, which need netplan', () => {
    const rendered = renderNetworkd(
      model('network: {version: 2, wifis: {wlan0: {dhcp4: true, access-points: {home: {password: "12345678"}}}}}'),
    );
    expect(rendered).toEqual({ ok: false, error: 'wifis need netplan, which is not installed on this device' });
  });
});
