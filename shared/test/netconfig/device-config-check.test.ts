import { describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../src/index.js';
import { changedConfigFields, checkDeviceConfig, problemText } from '../../src/netconfig/index.js';
import { SSH_KEYS } from './ssh-keys.fixture.js';

const problemsOf = (spec: DeviceSpec): string[] => checkDeviceConfig(spec).map(problemText);

describe('checkDeviceConfig', () => {
  it('accepts a full, valid configuration', () => {
    expect(
      problemsOf({
        netplanYamlConfig: 'network:\n  version: 2\n  ethernets:\n    eth0: {addresses: [10.0.0.5/24]}\n',
        sshConfig: {
          sshAuthorized: [
            { sshaKey: SSH_KEYS.ed25519 },
            { sshaKey: SSH_KEYS.rsa, from: '10.0.0.0/8,!10.0.0.9,*.example.com', noPty: true },
            { sshaKey: SSH_KEYS.ecdsa256, command: '/usr/bin/backup --now', environment: 'MODE=ro' },
            { sshaKey: SSH_KEYS.ecdsa384, permitopen: 'localhost:8080,[::1]:22', principals: 'ops,root', tunnel: '0' },
          ],
          disableSshPassword: true,
          ipAllowList: ['192.168.1.0/24', '10.0.0.7', '2001:db8::/32'],
          ipDenyList: ['192.168.1.66'],
          rejectPeriod: '300s',
          port: 2222,
        },
        proxyConfig: {
          httpProxy: 'http://proxy.example.com:3128',
          httpsProxy: 'https://user:secret@proxy.example.com',
          noProxy: 'localhost,127.0.0.1, .internal *.corp.example.com 10.0.0.0/8 [::1]:8080 registry:5000 *',
          proxyInterfaces: ['eth0'],
        },
        loggingConfig: { units: ['sshd.service', 'droplet'], journalSystemMaxUse: '200M', journalRuntimeMaxUse: '32M' },
      }),
    ).toEqual([]);
  });

  it('treats an empty netplanYamlConfig as none, and no spec as nothing to check', () => {
    expect(problemsOf({ netplanYamlConfig: '' })).toEqual([]);
    expect(problemsOf({ netplanYamlConfig: '  \n' })).toEqual([]);
    expect(checkDeviceConfig(undefined)).toEqual([]);
  });

  it('names the netplan problem under spec.netplanYamlConfig', () => {
    expect(
      problemsOf({ netplanYamlConfig: 'network:\n  version: 2\n  ethernets:\n    eth0: {addresses: [10.0.0.1]}\n' }),
    ).toEqual([
      'spec.netplanYamlConfig: network.ethernets.eth0.addresses[0]: "10.0.0.1" is not a CIDR address such as "10.0.0.1/24"',
    ]);
    expect(problemsOf({ netplanYamlConfig: 'network: [' })[0]).toMatch(/^spec.netplanYamlConfig: is not valid YAML/);
  });

  it.each<[string, DeviceSpec, string]>([
    [
      'a key that is no key',
      { sshConfig: { sshAuthorized: [{ sshaKey: 'hello' }] } },
      'spec.sshConfig.sshAuthorized[0].sshaKey: "hello" is not an OpenSSH key type',
    ],
    [
      'a key with a mismatched type',
      { sshConfig: { sshAuthorized: [{ sshaKey: `ssh-rsa ${SSH_KEYS.ed25519.split(' ')[1]}` }] } },
      'sshAuthorized[0].sshaKey: key data is of type "ssh-ed25519", not ssh-rsa',
    ],
    [
      'a second key smuggled in a comment',
      { sshConfig: { sshAuthorized: [{ sshaKey: `${SSH_KEYS.ed25519}\n${SSH_KEYS.rsa}` }] } },
      'holds control characters',
    ],
    [
      'an allow-list entry that is no address',
      { sshConfig: { ipAllowList: ['10.0.0.1', 'not-an-ip'] } },
      'spec.sshConfig.ipAllowList[1]: "not-an-ip" is not an IP address or CIDR block',
    ],
    [
      'a deny-list CIDR too long',
      { sshConfig: { ipDenyList: ['10.0.0.0/40'] } },
      'spec.sshConfig.ipDenyList[0]: "10.0.0.0/40" is not an IP address or CIDR block',
    ],
    [
      'a reject period that is no duration',
      { sshConfig: { rejectPeriod: 'five minutes' } },
      'spec.sshConfig.rejectPeriod: "five minutes" is not a duration',
    ],
    [
      'a reject period of zero',
      { sshConfig: { rejectPeriod: '0s' } },
      'spec.sshConfig.rejectPeriod: 0s is out of range (1s to 2592000s)',
    ],
    [
      'a key option with a double quote',
      { sshConfig: { sshAuthorized: [{ sshaKey: SSH_KEYS.ed25519, command: 'echo "hi"' }] } },
      'spec.sshConfig.sshAuthorized[0].command: "echo \\"hi\\"" is not a command without double quotes',
    ],
    [
      'a from option with a line break',
      { sshConfig: { sshAuthorized: [{ sshaKey: SSH_KEYS.ed25519, from: '10.0.0.1\nssh-ed25519 AAAA' }] } },
      'spec.sshConfig.sshAuthorized[0].from: ',
    ],
    [
      'an environment option that is no assignment',
      { sshConfig: { sshAuthorized: [{ sshaKey: SSH_KEYS.ed25519, environment: 'just-text' }] } },
      'environment: "just-text" is not NAME=value',
    ],
    [
      'a proxy of another scheme',
      { proxyConfig: { httpProxy: 'socks5://proxy:1080' } },
      'spec.proxyConfig.httpProxy: "socks5://proxy:1080": a proxy URL is http:// or https://, not socks5://',
    ],
    [
      'a proxy that is no URL',
      { proxyConfig: { httpsProxy: 'proxy.example.com:3128' } },
      'spec.proxyConfig.httpsProxy: "proxy.example.com:3128": a proxy URL is http:// or https://',
    ],
    [
      'a proxy with a path',
      { proxyConfig: { httpProxy: 'http://proxy/path' } },
      'spec.proxyConfig.httpProxy: "http://proxy/path": a proxy URL has no path',
    ],
    [
      'a proxy with a bad port',
      { proxyConfig: { httpProxy: 'http://proxy:99999' } },
      'spec.proxyConfig.httpProxy: "http://proxy:99999" is not a URL',
    ],
    [
      'a proxy with a line break',
      { proxyConfig: { httpProxy: 'http://proxy\nX=1' } },
      'spec.proxyConfig.httpProxy: "http://proxy\\nX=1" holds spaces or control characters',
    ],
    [
      'a no-proxy entry that is no host',
      { proxyConfig: { noProxy: 'localhost,http://x' } },
      'spec.proxyConfig.noProxy: "http://x" is not a host',
    ],
    [
      'a proxy interface that is no name',
      { proxyConfig: { proxyInterfaces: ['eth0/x'] } },
      'spec.proxyConfig.proxyInterfaces[0]: "eth0/x" is not an interface name',
    ],
    [
      'a journal size that is no size',
      { loggingConfig: { journalSystemMaxUse: '200MB' } },
      'spec.loggingConfig.journalSystemMaxUse: "200MB" is not a size such as "200M"',
    ],
    [
      'a journal size too small',
      { loggingConfig: { journalRuntimeMaxUse: '64K' } },
      'spec.loggingConfig.journalRuntimeMaxUse: 64K is out of range (1M to 1T)',
    ],
    [
      'a unit that is no unit name',
      { loggingConfig: { units: ['ssh d'] } },
      'spec.loggingConfig.units[0]: "ssh d" is not a unit name',
    ],
  ])('refuses %s', (_, spec, expected) => {
    expect(problemsOf(spec).join('\n')).toContain(expected);
  });

  it('checks only the fields it is given', () => {
    const spec: DeviceSpec = { netplanYamlConfig: 'network: {}', sshConfig: { ipAllowList: ['nope'] } };
    expect(checkDeviceConfig(spec, ['sshConfig']).map(problemText)).toEqual([
      'spec.sshConfig.ipAllowList[0]: "nope" is not an IP address or CIDR block',
    ]);
    expect(checkDeviceConfig(spec, [])).toEqual([]);
  });

  it('reports at most ten problems', () => {
    expect(checkDeviceConfig({ sshConfig: { ipAllowList: Array.from({ length: 30 }, () => 'x') } })).toHaveLength(10);
  });
});

describe('changedConfigFields', () => {
  it('lists the configuration members a write changes', () => {
    const before: DeviceSpec = { netplanYamlConfig: 'a', sshConfig: { port: 22 }, osVersion: '1.0.0' };
    expect(changedConfigFields(before, { ...before, osVersion: '2.0.0' })).toEqual([]);
    expect(changedConfigFields(before, { ...before, sshConfig: { port: 2222 } })).toEqual(['sshConfig']);
    expect(changedConfigFields(before, { osVersion: '1.0.0' })).toEqual(['netplanYamlConfig', 'sshConfig']);
    expect(changedConfigFields(undefined, { proxyConfig: {} })).toEqual(['proxyConfig']);
  });
});
