import { failedPrecondition, invalidArgument } from '@outpost/shared';
import type { ResourceRules } from '../../resources/resource-rules.js';

/**
 * Limits and LimitPools are made, sized and removed with plan assignments: users can neither create them
 * (not even through update with allow_missing, which they do not have) nor delete them, and only their
 * metadata is writable (every other field is output only).
 */
export function systemOwnedRules(plural: 'limits' | 'limitPools'): ResourceRules<{ name: string }> {
  return {
    beforeCreate: (_doc, op) => {
      if (op.system !== true) {
        throw invalidArgument(
          `${plural} cannot be created (allow_missing does not exist for ${plural}): assign a plan instead`,
        );
      }
    },
    beforeDelete: (doc, op) => {
      if (op.system !== true) {
        throw failedPrecondition(`${doc.name} goes with its plan assignments: unassign the plan instead`);
      }
    },
  };
}
