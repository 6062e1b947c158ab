import type { DeviceSpec } from '../resources/devices/device.js';
import type { ProblemList } from './config-problem.js';
import { childPath, quoted } from './config-problem.js';
import { durationProblem } from './duration.js';
import { isIpOrCidr } from './ip-address.js';
import { parseSshPublicKey } from './ssh-public-key.js';

type SshConfig = NonNullable<DeviceSpec['sshConfig']>;
type AuthorizedKey = NonNullable<SshConfig['sshAuthorized']>[number];

const MAX_KEYS = 256;
const MAX_ADDRESSES = 256;
const MAX_OPTION = 1024;
const DAY_MS = 86_400_000;

/**
 * Checks `sshConfig`: each authorized key parsed as an OpenSSH public key, its options safe to write into
 * authorized_keys, allow- and deny-lists as IPs or CIDR blocks, rejectPeriod a duration. `path` is where it sits.
 */
export function checkSshConfig(config: SshConfig, path: string, problems: ProblemList): void {
  const keys = config.sshAuthorized ?? [];
  if (keys.length > MAX_KEYS) problems.add(childPath(path, 'sshAuthorized'), `holds more than ${MAX_KEYS} keys`);
  keys
    .slice(0, MAX_KEYS)
    .forEach((key, i) => checkAuthorizedKey(key, childPath(childPath(path, 'sshAuthorized'), i), problems));
  for (const list of ['ipAllowList', 'ipDenyList'] as const) {
    const entries = config[list] ?? [];
    const listPath = childPath(path, list);
    if (entries.length > MAX_ADDRESSES) problems.add(listPath, `holds more than ${MAX_ADDRESSES} entries`);
    entries.slice(0, MAX_ADDRESSES).forEach((entry, i) => {
      if (!isIpOrCidr(entry))
        problems.add(childPath(listPath, i), `${quoted(entry)} is not an IP address or CIDR block`);
    });
  }
  if (config.rejectPeriod !== undefined) {
    const problem = durationProblem(config.rejectPeriod, 1000, 30 * DAY_MS);
    if (problem !== undefined) problems.add(childPath(path, 'rejectPeriod'), problem);
  }
}

/** What each authorized_keys option may hold (the agent writes them between double quotes). */
const OPTION_RULES: Readonly<Record<string, { pattern: RegExp; describe: string }>> = {
  from: {
    pattern: /^!?[A-Za-z0-9.:*?/_-]+(,!?[A-Za-z0-9.:*?/_-]+)*$/,
    describe: 'comma-separated host or address patterns',
  },
  permitopen: {
    pattern:
      /^([A-Za-z0-9._*-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5}|\*)(,([A-Za-z0-9._*-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5}|\*))*$/,
    describe: 'comma-separated host:port pairs',
  },
  principals: { pattern: /^[A-Za-z0-9._@-]+(,[A-Za-z0-9._@-]+)*$/, describe: 'comma-separated principal names' },
  environment: { pattern: /^[A-Za-z_][A-Za-z0-9_]*=[^"\\]*$/, describe: 'NAME=value' },
  tunnel: { pattern: /^\d{1,5}$/, describe: 'a tunnel device number' },
  command: { pattern: /^[^"\\]+$/, describe: 'a command without double quotes or backslashes' },
};

function checkAuthorizedKey(key: AuthorizedKey, path: string, problems: ProblemList): void {
  const parsed = parseSshPublicKey(key.sshaKey);
  if (!parsed.ok) problems.add(childPath(path, 'sshaKey'), parsed.problem);
  for (const [option, rule] of Object.entries(OPTION_RULES)) {
    const value = (key as Record<string, unknown>)[option];
    if (typeof value !== 'string') continue;
    const optionPath = childPath(path, option);
    // no line breaks or control characters: they would end the authorized_keys line early
    if (value.length > MAX_OPTION || /\p{Cc}/u.test(value) || !rule.pattern.test(value)) {
      problems.add(optionPath, `${quoted(value)} is not ${rule.describe}`);
    }
  }
}
