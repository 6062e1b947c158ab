import { ProblemList, checkProxyConfig, deviceSpecSchema, problemText } from '@outpost/shared';
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
    const parsed = proxyConfigSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, hash, error: `proxyConfig.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
    }
    const problems = new ProblemList();
    checkProxyConfig(parsed.data, 'proxyConfig', problems);
    if (!problems.empty) return { ok: false, hash, error: problems.problems.map(problemText).join('; ') };
  }
  const settings = parseProxySettings(raw);
  if (!settings.ok) return { ok: false, hash, error: settings.error };
  return { ok: true, hash, raw, settings: settings.settings };
}
