import { ProblemList, checkSshConfig, problemText, sshConfigSchema } from '@outpost/shared';
import type { DeviceSpec } from '@outpost/shared';
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
  const parsed = sshConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, hash, error: `sshConfig.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  const problems = new ProblemList();
  checkSshConfig(parsed.data, 'sshConfig', problems);
  if (!problems.empty) return { ok: false, hash, error: problems.problems.map(problemText).join('; ') };
  return { ok: true, hash, config: parsed.data };
}
