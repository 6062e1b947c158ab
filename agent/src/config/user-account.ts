import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** The user checks and pod services run as unless they ask for root (`--workload-user`, DROPLET_WORKLOAD_USER). */
export const DEFAULT_WORKLOAD_USER = 'outpost-workload';

/** A local user account, as passwd(5) describes it. */
export interface UserAccount {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** One passwd(5) line (`name:x:uid:gid:gecos:home:shell`), or undefined when it is not one. */
export function parsePasswdLine(line: string): UserAccount | undefined {
  const fields = line.trim().split(':');
  if (fields.length < 7) return undefined;
  const [name, , uid, gid, , home] = fields;
  if (!name || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) return undefined;
  return { name, uid: Number(uid), gid: Number(gid), home: home ?? '/' };
}

/**
 * Looks a user up by name through the system's name service (`getent passwd`, which also sees LDAP and
 * systemd-userdb users), or in /etc/passwd where getent is missing. Undefined when there is no such user.
 */
export async function lookUpUser(name: string): Promise<UserAccount | undefined> {
  const answer = await getentPasswd(name);
  if (answer === 'unavailable') {
    const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
    return passwd
      .split('\n')
      .map(parsePasswdLine)
      .find((account) => account?.name === name);
  }
  const account = answer === undefined ? undefined : parsePasswdLine(answer);
  return account?.name === name ? account : undefined;
}

/** getent's line for the user, undefined when it knows no such user, 'unavailable' when getent cannot run. */
function getentPasswd(name: string): Promise<string | undefined | 'unavailable'> {
  return new Promise((resolve) => {
    // `--` : a name starting with "-" is a name, never an option
    execFile('getent', ['passwd', '--', name], { timeout: 10_000 }, (err, stdout) => {
      if (err === null) return resolve(stdout.split('\n')[0]);
      // exit status 2: no such key
      resolve((err as { code?: unknown }).code === 2 ? undefined : 'unavailable');
    });
  });
}
