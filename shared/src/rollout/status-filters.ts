/** The counts `rollout-status` shows: spec 000 Endpoints rule 4's three, and a breakdown of in flight. */
export const STATUS_COUNTS = ['notTargeted', 'inFlight', 'done', 'failed', 'offline', 'pending'] as const;
export type StatusCount = (typeof STATUS_COUNTS)[number];

/**
 * The filter of each count for a version, so that the server counts (no device is read): rule 4's not yet
 * targeted (desired differs), in flight (desired is it, reported differs) and done (reported is it); and the in
 * flight devices split into failed (OSReady RolledBack or Failed), offline (not connected and not rebooting on
 * its way) and pending (the rest, still on their way). They agree with assessDevice on devices without health
 * checks; health is judged by the rollout itself (conditions beyond OSReady are not filterable).
 */
export function statusFilters(version: string): Record<StatusCount, string> {
  const v = JSON.stringify(version);
  const inFlight = `spec.osVersion = ${v} AND status.deviceInfo.osVersion != ${v}`;
  const failed = `status.osReadyReason IN ("RolledBack", "Failed")`;
  const offline = `status.connectionStatus != "Online" AND status.osReadyReason NOT IN ("RolledBack", "Failed", "Installing", "Rebooting", "Verifying")`;
  return {
    notTargeted: `spec.osVersion != ${v}`,
    inFlight,
    done: `status.deviceInfo.osVersion = ${v}`,
    failed: `${inFlight} AND ${failed}`,
    offline: `${inFlight} AND ${offline}`,
    pending: `${inFlight} AND NOT ${failed} AND NOT (${offline})`,
  };
}
