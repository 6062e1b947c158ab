import { describe, expect, it } from 'vitest';
import { proxyEnvironment } from '../../../src/config-apply/proxy/proxy-environment.js';
import { bypassesProxy, proxyFor } from '../../../src/config-apply/proxy/proxy-route.js';
import { parseProxySettings, redactedProxy } from '../../../src/config-apply/proxy/proxy-settings.js';
import type { ProxySettings } from '../../../src/config-apply/proxy/proxy-settings.js';

function settings(proxyConfig: unknown): ProxySettings {
  const parsed = parseProxySettings(proxyConfig);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.settings;
}

describe('parseProxySettings', () => {
  it('reads http and https proxies and the NO_PROXY list', () => {
    const parsed = settings({
      httpProxy: 'http://proxy.lan:3128',
      httpsProxy: 'https://user:pa%40ss@proxy.lan:8443/',
      noProxy: 'localhost, .internal ,10.0.0.0/8',
      proxyInterfaces: ['eth0'],
    });
    expect(parsed.httpProxy?.href).toBe('http://proxy.lan:3128/');
    expect(parsed.httpsProxy?.password).toBe('pa%40ss');
    expect(parsed.noProxy).toEqual(['localhost', '.internal', '10.0.0.0/8']);
  });

  it('takes an absent or empty configuration as no proxy', () => {
    expect(settings(undefined)).toEqual({ noProxy: [] });
    expect(settings({ httpProxy: '', httpsProxy: '  ' })).toEqual({ noProxy: [] });
  });

  it.each([
    [{ httpProxy: 'proxy.lan:3128' }, 'proxyConfig.httpProxy: "proxy.lan:3128": a proxy is http:// or https://'],
    [{ httpsProxy: 'socks5://proxy:1080' }, 'a proxy is http:// or https://, not socks5://'],
    [{ httpProxy: 'not a url' }, '"not a url" is not a URL'],
    [{ httpProxy: 'http://proxy:3128/path' }, 'a proxy URL has no path'],
    [{ httpProxy: 3128 }, 'proxyConfig.httpProxy:'],
  ])('refuses %j', (proxyConfig, message) => {
    const parsed = parseProxySettings(proxyConfig);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(message);
  });

  it('hides the password when the proxy is shown', () => {
    expect(redactedProxy(new URL('http://u:secret@proxy:3128'))).toBe('http://u:***@proxy:3128');
    expect(redactedProxy(new URL('http://proxy:3128'))).toBe('http://proxy:3128');
  });
});

describe('proxyFor and NO_PROXY', () => {
  const both = settings({ httpProxy: 'http://plain:3128', httpsProxy: 'http://secure:3128' });

  it('chooses the proxy by the scheme of the target', () => {
    expect(proxyFor(both, new URL('wss://cp.example.com/v1/agent:connect'))?.host).toBe('secure:3128');
    expect(proxyFor(both, new URL('https://cp.example.com/x'))?.host).toBe('secure:3128');
    expect(proxyFor(both, new URL('ws://cp.example.com/'))?.host).toBe('plain:3128');
    expect(proxyFor(settings({ httpProxy: 'http://plain:3128' }), new URL('https://cp/'))).toBeUndefined();
  });

  it.each([
    [['*'], 'anything.example', 443, true],
    [['example.com'], 'example.com', 443, true],
    [['example.com'], 'cp.example.com', 443, true],
    [['.example.com'], 'cp.example.com', 443, true],
    [['*.example.com'], 'example.com', 443, true],
    [['example.com'], 'notexample.com', 443, false],
    [['10.0.0.0/8'], '10.1.2.3', 443, true],
    [['10.0.0.0/8'], '11.1.2.3', 443, false],
    [['192.168.1.5'], '192.168.1.5', 80, true],
    [['fd00::/8'], '[fd12::1]', 443, true],
    [['::1'], '::1', 443, true],
    [['cp.example.com:8443'], 'cp.example.com', 443, false],
    [['cp.example.com:8443'], 'cp.example.com', 8443, true],
    [['10.0.0.0/'], '10.1.2.3', 443, false],
  ])('%j against %s:%d → %s', (noProxy, host, port, bypassed) => {
    expect(bypassesProxy(noProxy, host, port)).toBe(bypassed);
  });
});

describe('proxyEnvironment', () => {
  it('exports both cases of HTTP_PROXY, HTTPS_PROXY and NO_PROXY', () => {
    const env = proxyEnvironment(
      settings({ httpProxy: 'http://proxy:3128', httpsProxy: 'http://proxy:3129', noProxy: 'localhost,.lan' }),
    );
    expect(Object.fromEntries(env.map((e) => [e.name, e.value]))).toEqual({
      HTTP_PROXY: 'http://proxy:3128',
      http_proxy: 'http://proxy:3128',
      HTTPS_PROXY: 'http://proxy:3129',
      https_proxy: 'http://proxy:3129',
      NO_PROXY: 'localhost,.lan',
      no_proxy: 'localhost,.lan',
    });
  });

  it('exports nothing without a proxy', () => {
    expect(proxyEnvironment(settings({ noProxy: 'localhost' }))).toEqual([]);
  });
});
