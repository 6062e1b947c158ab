import { parseNetplan as checkNetplan, problemText } from '@outpost/shared';
import type { NetplanConfig } from '@outpost/shared';

// The netplan subset Outpost applies is checked by the same code on both sides (shared/src/netconfig): what the
// control plane accepts is what the agent renders. Every value that reaches a rendered file is an IP, a CIDR, a
// number, a flag, an enum or a name of a fixed character set, so the line-based systemd-networkd files stay sound.

export type {
  NetplanBond,
  NetplanBridge,
  NetplanCommon,
  NetplanConfig,
  NetplanEthernet,
  NetplanRoute,
  NetplanVlan,
  NetplanWifi,
} from '@outpost/shared';

export type ParsedNetplan = { ok: true; config: NetplanConfig } | { ok: false; error: string };

/** Parses and checks netplan YAML; the error names the path in `netplanYamlConfig` and the problem. */
export function parseNetplan(text: string): ParsedNetplan {
  const parsed = checkNetplan(text);
  if (parsed.ok) return parsed;
  const [first, ...others] = parsed.problems;
  const error =
    first === undefined
      ? 'netplanYamlConfig is invalid'
      : `netplanYamlConfig${first.path === '' ? ' ' : '.'}${problemText(first)}`;
  return { ok: false, error: others.length === 0 ? error : `${error} (and ${others.length} more problems)` };
}
