import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';
import { failedPrecondition, notFound, permissionDenied } from '@outpost/shared';

/** Whom a remote shell runs as. */
export interface ShellUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

/** Reads one `getent passwd` line (name:password:uid:gid:gecos:home:shell). */
export function parsePasswdLine(line: string): ShellUser | undefined {
  const [name, , uid, gid, , home, shell] = line.trim().split(':');
  if (name === undefined || home === undefined || shell === undefined) return undefined;
  const ids = [Number(uid), Number(gid)];
  if (!ids.every((id) => Number.isInteger(id) && id >= 0)) return undefined;
  return { name, uid: ids[0]!, gid: ids[1]!, home, shell: shell === '' ? '/bin/sh' : shell };
}

/** The agent's own user: shells run as it when the device's spec names no shellUser. */
export function agentUser(): ShellUser {
  const me = userInfo();
  return { name: me.username, uid: me.uid, gid: me.gid, home: me.homedir, shell: me.shell ?? '/bin/sh' };
}

/**
 * The user `name` through the system's user database (getent: local files, LDAP, ...). Only an agent running as
 * root can start a shell as another user.
 */
export async function lookUpShellUser(name: string): Promise<ShellUser> {
  const me = agentUser();
  if (name === me.name) return me;
  let line: string;
  try {
    line = (await promisify(execFile)('getent', ['passwd', name], { timeout: 10_000 })).stdout;
  } catch {
    throw notFound(`the device has no user "${name}" (spec.remoteAccess.shellUser)`);
  }
  const user = parsePasswdLine(line.split('\n')[0] ?? '');
  if (user === undefined) throw failedPrecondition(`the device's entry of user "${name}" is unreadable`);
  if (me.uid !== 0 && user.uid !== me.uid) {
    throw permissionDenied(`the agent runs as ${me.name}, not root: it cannot start a shell as "${name}"`);
  }
  return user;
}
