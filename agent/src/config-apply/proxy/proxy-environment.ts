import type { EnvVar } from '@outpost/shared';
import type { ProxySettings } from './proxy-settings.js';

/**
 * The environment that tells workloads about the device's proxy: HTTP_PROXY, HTTPS_PROXY and NO_PROXY in both the
 * upper-case and the lower-case form (tools disagree on which they read; curl reads only lower-case http_proxy).
 * Empty when no proxy is configured.
 */
export function proxyEnvironment(settings: ProxySettings): EnvVar[] {
  const env: EnvVar[] = [];
  const add = (name: string, value: string): void => {
    env.push({ name, value }, { name: name.toLowerCase(), value });
  };
  if (settings.httpProxy !== undefined) add('HTTP_PROXY', withoutTrailingSlash(settings.httpProxy));
  if (settings.httpsProxy !== undefined) add('HTTPS_PROXY', withoutTrailingSlash(settings.httpsProxy));
  if (env.length > 0 && settings.noProxy.length > 0) add('NO_PROXY', settings.noProxy.join(','));
  return env;
}

/** `http://proxy:3128` rather than `http://proxy:3128/`: some tools choke on the slash. */
const withoutTrailingSlash = (url: URL): string => url.href.replace(/\/$/, '');
