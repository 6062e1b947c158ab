import { checkSshConfig, sshConfigSchema } from '@outpost/shared';
import type { DeviceSpec } from '@outpost/shared';
import { checkedPart } from '../checked-part.js';
import { contentHash } from '../part-store.js';

export type SshConfig = NonNullable<DeviceSpec['sshConfig']>;

/** What the SSH part takes from the device's spec (which reaches the agent loosely typed). */
export type DesiredSsh =
  { ok: true; hash: string; config: SshConfig | undefined } | { ok: false; hash: string; error: string };

/**
 * `spec.sshConfig`, checked by the agent with the control plane's own rules (keys parsed as OpenSSH public keys,
 * options safe for authorized_keys, allow- and deny-lists as IPs or CIDRs): this is what stands in for `sshd -t`
 * where sshd cannot be asked, and what keeps a spec from an older control plane from writing a broken file.
 */
export function desiredSsh(spec: Record<string, unknown>): DesiredSsh {
  const raw = spec.sshConfig;
  const hash = contentHash(raw);
  if (raw === undefined || raw === null) return { ok: true, hash, config: undefined };
  const checked = checkedPart(raw, sshConfigSchema, 'sshConfig', checkSshConfig);
  return checked.ok ? { ok: true, hash, config: checked.value } : { ok: false, hash, error: checked.error };
}
