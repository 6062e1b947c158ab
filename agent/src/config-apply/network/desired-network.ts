import { createHash } from 'node:crypto';

export const DEFAULT_GRACE_SECONDS = 120;
const MIN_GRACE_SECONDS = 10;
const MAX_GRACE_SECONDS = 3600;

/** What the network part takes from the device's spec (which reaches the agent loosely typed). */
export interface DesiredNetwork {
  /** netplan YAML; absent or blank: no Outpost network configuration (the factory one) */
  netplanYaml: string | undefined;
  /** sha-256 of the YAML: the part changed when it changed (grace and fallback do not count) */
  hash: string;
  graceSeconds: number;
  /** spec.disableNetworkConfigFallback (or sshConfig.disableNetworkConfigFallback): no trial, no restore */
  fallbackDisabled: boolean;
}

export function desiredNetwork(spec: Record<string, unknown>): DesiredNetwork {
  const yaml =
    typeof spec.netplanYamlConfig === 'string' && spec.netplanYamlConfig.trim() !== ''
      ? spec.netplanYamlConfig
      : undefined;
  const grace = spec.networkConfigGraceSeconds;
  const ssh = spec.sshConfig;
  const sshFallbackDisabled =
    typeof ssh === 'object' && ssh !== null && (ssh as Record<string, unknown>).disableNetworkConfigFallback === true;
  return {
    netplanYaml: yaml,
    hash: createHash('sha256')
      .update(yaml ?? '')
      .digest('hex'),
    graceSeconds:
      typeof grace === 'number' && Number.isInteger(grace)
        ? Math.min(MAX_GRACE_SECONDS, Math.max(MIN_GRACE_SECONDS, grace))
        : DEFAULT_GRACE_SECONDS,
    fallbackDisabled: spec.disableNetworkConfigFallback === true || sshFallbackDisabled,
  };
}
