import type { Condition } from '@outpost/shared';

export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/**
 * The conditions with `update` applied: replaces the condition of the same type, keeping its
 * lastTransitionTime unless the status changes (Kubernetes semantics).
 */
export function upsertCondition(conditions: readonly Condition[], update: ConditionUpdate, now: Date): Condition[] {
  const existing = conditions.find((c) => c.type === update.type);
  const lastTransitionTime =
    existing !== undefined && existing.status === update.status ? existing.lastTransitionTime : now.toISOString();
  const next: Condition = { ...update, lastTransitionTime };
  return existing === undefined ? [...conditions, next] : conditions.map((c) => (c.type === update.type ? next : c));
}
