import type { Condition } from '@outpost/shared';

const HEALTHY_PREFIX = 'Healthy/';

/** A health check that keeps a trial boot from committing. */
export interface CommitBlocker {
  /** the check's id (its condition is `Healthy/<id>`) */
  id: string;
  /** true: it fails (False/Failing or False/Timeout); false: it has no verdict yet (Unknown/Pending) */
  failing: boolean;
  /** the condition's message: what the probe said */
  message: string;
}

/**
 * The health checks that keep a trial boot from committing, in the order of their conditions: every
 * `Healthy/<id>` that fails (False) or still waits for its first verdict (Unknown/Pending). A check this agent
 * cannot run (Unknown/Unsupported) and a passing one do not.
 */
export function commitBlockers(conditions: readonly Condition[]): CommitBlocker[] {
  const blockers: CommitBlocker[] = [];
  for (const c of conditions) {
    if (!c.type.startsWith(HEALTHY_PREFIX)) continue;
    const failing = c.status === 'False';
    if (failing || (c.status === 'Unknown' && c.reason === 'Pending')) {
      blockers.push({ id: c.type.slice(HEALTHY_PREFIX.length), failing, message: c.message });
    }
  }
  return blockers;
}

/** "web (connection refused), disk (no verdict yet)" */
export const describeBlockers = (blockers: readonly CommitBlocker[]): string =>
  blockers.map((b) => `${b.id} (${b.failing ? b.message : 'no verdict yet'})`).join(', ');
