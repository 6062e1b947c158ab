import { checkProxyConfig, deviceSpecSchema } from '@outpost/shared';
import { checkedPart } from '../checked-part.js';
import { contentHash } from '../part-store.js';
import { parseProxySettings } from './proxy-settings.js';
import type { ProxySettings } from './proxy-settings.js';

const proxyConfigSchema = deviceSpecSchema.shape.proxyConfig.unwrap();

/** What the proxy part takes from the device's spec: the settings, and the raw value for the known-good copy. */
export type DesiredProxy =
  { ok: true; hash: string; raw: unknown; settings: ProxySettings } | { ok: false; hash: string; error: string };

/** `spec.proxyConfig`, checked by the agent with the control plane's own rules (URLs, NO_PROXY entries). */
export function desiredProxy(spec: Record<string, unknown>): DesiredProxy {
  const raw = spec.proxyConfig ?? undefined;
  const hash = contentHash(raw);
  if (raw !== undefined) {
    const checked = checkedPart(raw, proxyConfigSchema, 'proxyConfig', checkProxyConfig);
    if (!checked.ok) return { ok: false, hash, error: checked.error };
  }
  const settings = parseProxySettings(raw);
  if (!settings.ok) return { ok: false, hash, error: settings.error };
  return { ok: true, hash, raw, settings: settings.settings };
}
