import { describe, expect, it } from 'vitest';
import { parseNetplan, problemText } from '../../src/netconfig/index.js';

/** The problems of a YAML text, as `path: message` lines. */
function problemsOf(yaml: string): string[] {
  const parsed = parseNetplan(yaml);
  if (parsed.ok) throw new Error(`expected problems in:\n${yaml}`);
  return parsed.problems.map(problemText);
}

const network = (body: string): string => `network:\n  version: 2\n${body}`;

describe('parseNetplan: configurations Outpost applies', () => {
  it('reads a static ethernet with routes, default route and nameservers of both families', () => {
    const parsed = parseNetplan(
      network(`  renderer: networkd
  ethernets:
    eth0:
      dhcp4: false
      dhcp6: false
      addresses: [10.0.0.5/24, "2001:db8::5/64"]
      routes:
        - to: default
          via: 10.0.0.1
        - to: 192.168.50.0/24
          via: 10.0.0.254
          metric: 100
          on-link: true
        - to: "::/0"
          via: "2001:db8::1"
      nameservers:
        addresses: [1.1.1.1, "2606:4700::1111"]
        search: [example.com, lan]
      mtu: 1500
      optional: true
      macaddress: "00:11:22:33:44:55"
`),
    );
    expect(parsed).toEqual({
      ok: true,
      config: {
        renderer: 'networkd',
        ethernets: [
          {
            id: 'eth0',
            dhcp4: false,
            dhcp6: false,
            addresses: ['10.0.0.5/24', '2001:db8::5/64'],
            routes: [
              { to: 'default', via: '10.0.0.1' },
              { to: '192.168.50.0/24', via: '10.0.0.254', metric: 100, onLink: true },
              { to: '::/0', via: '2001:db8::1' },
            ],
            nameservers: { addresses: ['1.1.1.1', '2606:4700::1111'], search: ['example.com', 'lan'] },
            mtu: 1500,
            optional: true,
            macaddress: '00:11:22:33:44:55',
          },
        ],
        wifis: [],
        bonds: [],
        bridges: [],
        vlans: [],
      },
    });
  });

  it('reads the flow style and a DHCP-only interface', () => {
    const parsed = parseNetplan('network: {version: 2, ethernets: {enp1s0: {dhcp4: true}}}');
    expect(parsed.ok && parsed.config.ethernets).toEqual([{ id: 'enp1s0', dhcp4: true, addresses: [], routes: [] }]);
  });

  it('reads matched and renamed interfaces, wifis, bonds, bridges and vlans referring to each other', () => {
    const parsed = parseNetplan(
      network(`  ethernets:
    uplink-by-mac:
      match: {macaddress: "52:54:00:12:34:56"}
      dhcp4: true
    eno1: {}
    eno2: {}
    eno3: {}
  wifis:
    wlan0:
      dhcp4: true
      access-points:
        "Shop floor":
          password: "correct horse battery"
        guest: {}
  bonds:
    bond0:
      interfaces: [eno1, eno2]
      parameters: {mode: active-backup, mii-monitor-interval: 100, primary: eno1}
  vlans:
    vlan10:
      id: 10
      link: bond0
      addresses: [10.10.0.2/24]
  bridges:
    br0:
      interfaces: [eno3, vlan10]
      parameters: {stp: false}
      dhcp4: true
`),
    );
    if (!parsed.ok) throw new Error(parsed.problems.map(problemText).join('\n'));
    expect(parsed.config.ethernets[0]).toMatchObject({
      id: 'uplink-by-mac',
      match: { macaddress: '52:54:00:12:34:56' },
    });
    expect(parsed.config.wifis[0]?.accessPoints).toEqual([
      { ssid: 'Shop floor', password: 'correct horse battery' },
      { ssid: 'guest' },
    ]);
    expect(parsed.config.bonds[0]?.parameters).toEqual({
      mode: 'active-backup',
      miiMonitorInterval: 100,
      primary: 'eno1',
    });
    expect(parsed.config.vlans[0]).toMatchObject({ vlanId: 10, link: 'bond0', addresses: ['10.10.0.2/24'] });
    expect(parsed.config.bridges[0]).toMatchObject({ interfaces: ['eno3', 'vlan10'], parameters: { stp: false } });
  });

  it('accepts vlan ids 0 and 4094', () => {
    const vlans = (id: number): string =>
      network(`  ethernets: {eth0: {}}\n  vlans:\n    v${id}: {id: ${id}, link: eth0}\n`);
    expect(parseNetplan(vlans(0)).ok).toBe(true);
    expect(parseNetplan(vlans(4094)).ok).toBe(true);
  });
});

describe('parseNetplan: what it refuses, naming the path and the problem', () => {
  it('an address without a prefix length', () => {
    expect(problemsOf(network('  ethernets:\n    eth0:\n      addresses: [10.0.0.1]\n'))).toEqual([
      'network.ethernets.eth0.addresses[0]: "10.0.0.1" is not a CIDR address such as "10.0.0.1/24"',
    ]);
  });

  it.each([
    ['not-an-ip/24', 'addresses: [not-an-ip/24]', 'addresses[0]: "not-an-ip/24" is not a CIDR address'],
    ['a prefix too long', 'addresses: [10.0.0.1/33]', 'addresses[0]: "10.0.0.1/33" is not a CIDR address'],
    ['an IPv6 prefix too long', 'addresses: ["2001:db8::1/129"]', 'addresses[0]: "2001:db8::1/129" is not a CIDR'],
    [
      'a nameserver that is no IP',
      'nameservers: {addresses: [not-an-ip]}',
      'nameservers.addresses[0]: "not-an-ip" is not an IP address',
    ],
    [
      'a search domain that is none',
      'nameservers: {search: ["bad domain"]}',
      'nameservers.search[0]: "bad domain" is not a domain name',
    ],
    ['a "yes" for a boolean', 'dhcp4: yes', 'dhcp4: "yes" is not a boolean (true or false)'],
    ['a number for a boolean', 'dhcp6: 1', 'dhcp6: 1 is not a boolean'],
    ['an mtu too small', 'mtu: 20', 'mtu: 20 is not a whole number from 68 to 65535'],
    ['a quoted mtu', 'mtu: "1500"', 'mtu: "1500" is not a whole number'],
    ['a route via no IP', 'routes: [{to: default, via: gateway}]', 'routes[0].via: "gateway" is not an IP address'],
    [
      'a route to a bare address',
      'routes: [{to: 10.1.0.1, via: 10.0.0.1}]',
      'routes[0].to: "10.1.0.1" is not "default" or a CIDR block',
    ],
    ['a route without to', 'routes: [{via: 10.0.0.1}]', 'routes[0]: needs "to"'],
    [
      'a route mixing families',
      'routes: [{to: 10.1.0.0/16, via: "2001:db8::1"}]',
      'routes[0]: "to" 10.1.0.0/16 and "via" 2001:db8::1 are not of the same IP family',
    ],
    [
      'a negative metric',
      'routes: [{to: default, via: 10.0.0.1, metric: -1}]',
      'routes[0].metric: -1 is not a whole number',
    ],
    ['routes as a mapping', 'routes: {to: default}', 'routes: must be a list'],
    ['a MAC address that is none', 'macaddress: "00:11:22:33:44"', 'macaddress: "00:11:22:33:44" is not a MAC address'],
    ['a gateway4 of the wrong family', 'gateway4: "2001:db8::1"', 'gateway4: "2001:db8::1" is not an IPv4 address'],
    [
      'a key Outpost does not apply',
      'dhcp4-overrides: {use-dns: false}',
      'dhcp4-overrides: is not a key Outpost supports here',
    ],
    ['set-name, which the agent does not render', 'set-name: wan0', 'set-name: is not a key Outpost supports here'],
  ])('%s', (_, line, expected) => {
    const problems = problemsOf(network(`  ethernets:\n    eth0:\n      ${line}\n`));
    expect(problems.join('\n')).toContain(`network.ethernets.eth0.${expected}`);
  });

  it('text that is not YAML, duplicate keys, several documents, aliases', () => {
    expect(problemsOf('network: [unclosed')[0]).toMatch(/^is not valid YAML: /);
    expect(problemsOf('network:\n  version: 2\n  version: 2\n')[0]).toMatch(
      /^is not valid YAML: Map keys must be unique/,
    );
    expect(problemsOf('network: {version: 2}\n---\nnetwork: {version: 2}\n')[0]).toMatch(/^is not valid YAML/);
    expect(problemsOf(network('  ethernets:\n    eth0: &a {dhcp4: true}\n    eth1: *a\n'))).toEqual([
      'network.ethernets.eth1: YAML aliases (*name) are not supported',
    ]);
  });

  it('a document that is not a netplan network', () => {
    expect(problemsOf('')).toEqual(['needs a top-level "network" mapping']);
    expect(problemsOf('just text')).toEqual(['needs a top-level "network" mapping']);
    expect(problemsOf('network: [1]')).toEqual(['network: must be a mapping']);
    expect(problemsOf('network: {}')).toEqual(['network: needs "version: 2"']);
    expect(problemsOf('network: {version: 1}')).toEqual(['network.version: only version 2 is supported']);
    expect(problemsOf('network: {version: 2}\nwifi: {}')).toEqual([
      'wifi: is not a key Outpost supports here (known: network)',
    ]);
    expect(problemsOf(network('  tunnels: {}\n'))[0]).toMatch(/^network.tunnels: is not a key Outpost supports here/);
    expect(problemsOf(network('  renderer: NetworkManager\n'))[0]).toBe(
      'network.renderer: "NetworkManager" is not one of networkd',
    );
    expect(problemsOf(network('  ethernets:\n    eth0:\n'))).toEqual(['network.ethernets.eth0: must be a mapping']);
  });

  it('interface ids that are no interface names (they name files on the device)', () => {
    expect(problemsOf(network('  ethernets:\n    "../../etc/x": {dhcp4: true}\n'))[0]).toMatch(
      /^network.ethernets.\.\.\/\.\.\/etc\/x: id "\.\.\/\.\.\/etc\/x" is not an interface name/,
    );
    expect(problemsOf(network('  bridges:\n    a-bridge-name-too-long: {}\n'))[0]).toMatch(/is not an interface name/);
    // a matched physical interface's id is only a label: it may be longer
    expect(parseNetplan(network('  ethernets:\n    the-main-uplink-port:\n      match: {name: eth0}\n')).ok).toBe(true);
    expect(problemsOf(network(`  ethernets:\n    ${'x'.repeat(64)}:\n      match: {name: eth0}\n`))[0]).toMatch(
      /is not an id \(up to 63 letters/,
    );
    expect(problemsOf(network('  ethernets:\n    x:\n      match: {}\n'))).toEqual([
      'network.ethernets.x.match: must name a name or a macaddress',
    ]);
  });

  it('an id defined under two kinds', () => {
    expect(problemsOf(network('  ethernets: {br0: {}}\n  bridges: {br0: {}}\n'))).toEqual([
      'network.bridges.br0: id is already defined under ethernets',
    ]);
  });

  it('bonds and bridges naming interfaces that are not defined, or already taken', () => {
    expect(problemsOf(network('  ethernets: {eth0: {}}\n  bonds:\n    bond0: {interfaces: [eth0, eth9]}\n'))).toEqual([
      'network.bonds.bond0.interfaces[1]: "eth9" is not defined under ethernets',
    ]);
    expect(
      problemsOf(
        network(
          '  ethernets: {eth0: {}}\n  bonds: {bond0: {interfaces: [eth0]}}\n  bridges: {br0: {interfaces: [eth0]}}\n',
        ),
      ),
    ).toEqual(['network.bridges.br0.interfaces[0]: "eth0" is already an interface of bond0']);
    expect(
      problemsOf(
        network('  ethernets: {eth0: {}}\n  bonds:\n    bond0: {interfaces: [eth0], parameters: {primary: eth1}}\n'),
      ),
    ).toEqual(['network.bonds.bond0.parameters.primary: "eth1" is not one of the bond\'s interfaces']);
    expect(
      problemsOf(
        network('  ethernets: {eth0: {}}\n  bonds:\n    bond0: {interfaces: [eth0], parameters: {mode: fastest}}\n'),
      )[0],
    ).toMatch(/parameters.mode: "fastest" is not one of balance-rr, active-backup/);
  });

  it('vlans with ids out of range, without a link, or riding on nothing defined', () => {
    const vlan = (body: string): string[] =>
      problemsOf(network(`  ethernets: {eth0: {}}\n  vlans:\n    vlan5: ${body}\n`));
    expect(vlan('{id: 4095, link: eth0}')).toEqual([
      'network.vlans.vlan5.id: 4095 is not a whole number from 0 to 4094',
    ]);
    expect(vlan('{id: -1, link: eth0}')).toEqual(['network.vlans.vlan5.id: -1 is not a whole number from 0 to 4094']);
    expect(vlan('{link: eth0}')).toEqual(['network.vlans.vlan5: needs "id" (0 to 4094)']);
    expect(vlan('{id: 5}')).toEqual(['network.vlans.vlan5: needs "link" (the interface it rides on)']);
    expect(vlan('{id: 5, link: eth7}')).toEqual([
      'network.vlans.vlan5.link: "eth7" is not defined under ethernets, bonds or bridges',
    ]);
  });

  it('wifis without access points, with a short password or a bad SSID', () => {
    expect(problemsOf(network('  wifis:\n    wlan0: {dhcp4: true}\n'))).toEqual([
      'network.wifis.wlan0: needs "access-points"',
    ]);
    expect(problemsOf(network('  wifis:\n    wlan0:\n      access-points: {home: {password: short}}\n'))).toEqual([
      'network.wifis.wlan0.access-points.home.password: must be 8 to 63 bytes long',
    ]);
    expect(problemsOf(network(`  wifis:\n    wlan0:\n      access-points: {"${'x'.repeat(33)}": {}}\n`))[0]).toMatch(
      /SSID must be 1 to 32 bytes long/,
    );
    expect(problemsOf(network('  wifis:\n    wlan0:\n      access-points: {home: {mode: ap}}\n'))[0]).toMatch(
      /access-points.home.mode: is not a key Outpost supports here/,
    );
  });

  it('reports every problem at once, in document order', () => {
    const problems = problemsOf(network('  ethernets:\n    eth0:\n      addresses: [10.0.0.1]\n      mtu: big\n'));
    expect(problems).toEqual([
      'network.ethernets.eth0.addresses[0]: "10.0.0.1" is not a CIDR address such as "10.0.0.1/24"',
      'network.ethernets.eth0.mtu: "big" is not a whole number from 68 to 65535',
    ]);
  });

  it('text too long, and nesting too deep', () => {
    expect(problemsOf(`network: {version: 2}\n#${'x'.repeat(70_000)}`)).toEqual(['is longer than 65536 characters']);
    expect(problemsOf(`network: ${'['.repeat(40)}${']'.repeat(40)}`)).toEqual(
      [{ path: `network${'[0]'.repeat(24)}`, message: 'is nested deeper than 24 levels' }].map(problemText),
    );
    expect(problemsOf(`network: ${'['.repeat(5000)}${']'.repeat(5000)}`)[0]).toMatch(/^is not valid YAML/);
  });
});
