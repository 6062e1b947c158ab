import { lookUpUser } from '../config/user-account.js';
import type { UserAccount } from '../config/user-account.js';
import type { ConditionUpdate } from '../metrics/conditions.js';

/** The condition that tells whom checks and pod services run as. */
export const WORKLOAD_USER_CONDITION = 'WorkloadUser';

/** A user to switch to before running a program (absent: the program runs as the agent itself). */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** Whom COMMAND checks and pod services run as. */
export interface WorkloadUser {
  /** The user to run a program as; undefined: as the agent itself (asked for root, or no user to switch to). */
  runAs(asRoot: boolean): RunAs | undefined;
  /** `WorkloadUser`: True when programs run as the workload user, False when they run as the agent itself */
  condition: ConditionUpdate;
}

/** Programs run as the agent itself (no workload user: tests, and where none is configured). */
export const AGENT_ITSELF: WorkloadUser = {
  runAs: () => undefined,
  condition: {
    type: WORKLOAD_USER_CONDITION,
    status: 'False',
    reason: 'NotConfigured',
    message: 'no workload user: health checks and pod services run as the agent itself',
  },
};

/**
 * Decides whom programs run as, from the configured user (`account`, undefined when there is no such user) and
 * the agent's own uid. Only root can switch users: an agent running as another user runs them as itself. A program
 * that asks for root runs as the agent itself (root where the agent is).
 */
export function workloadUser(configured: string, account: UserAccount | undefined, agentUid: number): WorkloadUser {
  const itself = (reason: string, why: string): WorkloadUser => ({
    runAs: () => undefined,
    condition: {
      type: WORKLOAD_USER_CONDITION,
      status: 'False',
      reason,
      message: `${why}: health checks and pod services run as the agent itself (uid ${agentUid})`,
    },
  });
  if (account === undefined) return itself('UserMissing', `the workload user "${configured}" does not exist`);
  if (account.uid === 0) return itself('PrivilegedUser', `the workload user "${configured}" is root`);
  if (agentUid !== 0 && agentUid !== account.uid) {
    return itself('CannotSwitch', `the agent is not root and cannot switch to the workload user "${configured}"`);
  }
  const user: RunAs = { name: account.name, uid: account.uid, gid: account.gid, home: account.home };
  return {
    runAs: (asRoot) => (asRoot || agentUid === account.uid ? undefined : user),
    condition: {
      type: WORKLOAD_USER_CONDITION,
      status: 'True',
      reason: 'Unprivileged',
      message:
        `health checks and pod services run as ${account.name} (uid ${account.uid}, gid ${account.gid})` +
        (agentUid === 0 ? '; those that ask for root run as root' : ''),
    },
  };
}

/** The environment a program run as `user` starts with: the user's own HOME, USER and LOGNAME, never the agent's. */
export function userEnvironment(user: RunAs): Record<string, string> {
  return { HOME: user.home, USER: user.name, LOGNAME: user.name };
}

/** The workload user of this agent: looks the configured name up and compares it with the agent's own uid. */
export async function resolveWorkloadUser(configured: string): Promise<WorkloadUser> {
  return workloadUser(configured, await lookUpUser(configured), process.getuid?.() ?? -1);
}
