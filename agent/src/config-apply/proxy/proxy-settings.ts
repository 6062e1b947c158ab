import { z } from 'zod';

/** The device's proxy as the agent uses it: `spec.proxyConfig`, checked. */
export interface ProxySettings {
  /** for plain http:// and ws:// targets */
  httpProxy?: URL;
  /** for https:// and wss:// targets */
  httpsProxy?: URL;
  /** NO_PROXY entries, lower-cased: host names (a leading `.` or `*.` matches subdomains), IPs, CIDRs, `*` */
  noProxy: string[];
}

export const NO_PROXY_SETTINGS: ProxySettings = { noProxy: [] };

/** `spec.proxyConfig` as the agent reads it; other members (proxyInterfaces) pass and are not used. */
const proxyConfigSchema = z.looseObject({
  httpProxy: z.string().optional(),
  httpsProxy: z.string().optional(),
  noProxy: z.string().optional(),
});

export type ProxySettingsResult = { ok: true; settings: ProxySettings } | { ok: false; error: string };

/**
 * Checks `spec.proxyConfig` (absent: no proxy). A proxy is an `http://` or `https://` URL with a host and nothing
 * but an optional port and `user:password@`; an empty string means none.
 */
export function parseProxySettings(value: unknown): ProxySettingsResult {
  if (value === undefined || value === null) return { ok: true, settings: NO_PROXY_SETTINGS };
  const parsed = proxyConfigSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `proxyConfig.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  const settings: ProxySettings = { noProxy: noProxyEntries(parsed.data.noProxy ?? '') };
  for (const key of ['httpProxy', 'httpsProxy'] as const) {
    const text = parsed.data[key]?.trim() ?? '';
    if (text === '') continue;
    const url = proxyUrl(text);
    if (typeof url === 'string') return { ok: false, error: `proxyConfig.${key}: ${url}` };
    settings[key] = url;
  }
  return { ok: true, settings };
}

/** The proxy URL, or why it is none. */
function proxyUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${JSON.stringify(text)}: a proxy is http:// or https://, not ${url.protocol}//`;
  }
  if (url.hostname === '') return `${JSON.stringify(text)} names no host`;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    return `${JSON.stringify(text)}: a proxy URL has no path, query or fragment`;
  }
  return url;
}

function noProxyEntries(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** A proxy URL fit for logs and status: without its password. */
export function redactedProxy(url: URL): string {
  if (url.password === '') return url.origin;
  const copy = new URL(url.href);
  copy.password = '***';
  return `${copy.protocol}//${copy.username}:***@${copy.host}`;
}
