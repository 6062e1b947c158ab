import type { SshConfig } from './desired-ssh.js';

/** The sshd drop-in Outpost owns (Debian's sshd_config includes sshd_config.d/*.conf before its own settings). */
export const SSHD_DROP_IN = '/etc/ssh/sshd_config.d/90-outpost.conf';

/** The authorized keys Outpost manages for `user`, apart from the user's own ~/.ssh/authorized_keys. */
export const authorizedKeysPath = (user: string): string => `/etc/ssh/outpost/authorized_keys/${user}`;

const HEADER = "# Written by droplet (Outpost) from the device's spec.sshConfig: changes made here are overwritten.\n";

/**
 * The drop-in for `config`: the port, password and public-key login, the Outpost-managed authorized keys file next
 * to the users' own, and the allow- and deny-lists as `AllowUsers`/`DenyUsers *@<address or CIDR>` (sshd takes CIDR
 * blocks in the host part). Settings the spec leaves out are not written, so sshd's own defaults stand.
 */
export function renderSshdDropIn(config: SshConfig): string {
  const lines: string[] = [];
  if (config.port !== undefined) lines.push(`Port ${config.port}`);
  if (config.disableSshPassword === true) {
    lines.push('PasswordAuthentication no', 'KbdInteractiveAuthentication no');
  } else if (config.disableSshPassword === false) {
    lines.push('PasswordAuthentication yes');
  }
  if (config.disableSshAuthkey === true) lines.push('PubkeyAuthentication no');
  if ((config.sshAuthorized ?? []).length > 0) {
    // %u: every user's file is looked up there; only the configured user's exists
    lines.push(`AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys2 ${authorizedKeysPath('%u')}`);
  }
  const allow = config.ipAllowList ?? [];
  if (allow.length > 0) lines.push(`AllowUsers ${allow.map(anyUserFrom).join(' ')}`);
  const deny = config.ipDenyList ?? [];
  if (deny.length > 0) lines.push(`DenyUsers ${deny.map(anyUserFrom).join(' ')}`);
  return HEADER + lines.map((line) => `${line}\n`).join('');
}

/** Any user from `entry`: `*@10.0.0.0/8`, `*@2001:db8::1` (sshd splits USER@HOST at the `@`). */
const anyUserFrom = (entry: string): string => `*@${entry}`;

type AuthorizedKey = NonNullable<SshConfig['sshAuthorized']>[number];

/** authorized_keys lines, each with its options (`restrict,from="…",no-pty ssh-ed25519 AAAA… comment`). */
export function renderAuthorizedKeys(keys: readonly AuthorizedKey[]): string {
  return HEADER + keys.map((key) => `${authorizedKeyLine(key)}\n`).join('');
}

function authorizedKeyLine(key: AuthorizedKey): string {
  const options: string[] = [];
  const flag = (on: boolean | undefined, name: string): void => {
    if (on === true) options.push(name);
  };
  // the values were checked (desiredSsh): no double quotes, backslashes or line breaks where they are quoted
  const quoted = (value: string | undefined, name: string): void => {
    if (value !== undefined && value !== '') options.push(`${name}="${value}"`);
  };
  flag(key.restrict, 'restrict');
  flag(key.certAuthority, 'cert-authority');
  quoted(key.command, 'command');
  quoted(key.environment, 'environment');
  quoted(key.from, 'from');
  flag(key.noAgentForwarding, 'no-agent-forwarding');
  flag(key.noPortForwarding, 'no-port-forwarding');
  flag(key.noPty, 'no-pty');
  flag(key.noUserRc, 'no-user-rc');
  flag(key.noX11Forwarding, 'no-X11-forwarding');
  quoted(key.permitopen, 'permitopen');
  quoted(key.principals, 'principals');
  quoted(key.tunnel, 'tunnel');
  const keyText = key.sshaKey
    .trim()
    .split(/[ \t]+/)
    .join(' ');
  return options.length === 0 ? keyText : `${options.join(',')} ${keyText}`;
}
