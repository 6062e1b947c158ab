import type { Condition, Device } from '@outpost/shared';

/** OSReady reasons of a device that has begun switching slots: it must still come back on its own. */
const SWITCHING_REASONS: ReadonlySet<unknown> = new Set(['Installing', 'Rebooting', 'Verifying']);

/**
 * The device with the OSReady condition that follows a write of its spec.osVersion (an accepted write that
 * changed it), from what the device last reported:
 * - another version: False/Pending, naming any health check that already fails (a trial boot would not commit);
 * - the version it runs, or none: True/Converged, as there is nothing to install (the agent drops a download
 *   or a requested switch), except while it is switching slots, when it still has to return: False/Pending;
 * - a device whose OS the agent does not manage keeps its condition (Unsupported).
 */
export function osReadyAfterWrite(device: Device, now: string): Device {
  const status = device.status ?? {};
  const info = status.deviceInfo ?? {};
  if (info.managedFeatures?.os === false) return device;
  const conditions = status.conditions ?? [];
  const previous = conditions.find((c) => c.type === 'OSReady');
  const desired = device.spec?.osVersion;
  const running = info.osVersion;
  const switching = SWITCHING_REASONS.has(previous?.reason);

  let next: { status: 'True' | 'False'; reason: string; message: string };
  if (desired === undefined) {
    if (switching) return device; // the trial in progress is committed as usual
    next = {
      status: 'True',
      reason: 'Converged',
      message: `no OS version is requested${running === undefined ? '' : `; running ${running}`}`,
    };
  } else if (desired === running) {
    next = switching
      ? { status: 'False', reason: 'Pending', message: `waiting for the device to return to ${running}` }
      : { status: 'True', reason: 'Converged', message: `running ${running}` };
  } else {
    next = {
      status: 'False',
      reason: 'Pending',
      message: `waiting for the device to install ${desired}${failingChecksNote(conditions, desired)}`,
    };
  }
  const condition: Condition = {
    type: 'OSReady',
    ...next,
    lastTransitionTime: previous && previous.status === next.status ? previous.lastTransitionTime : now,
  };
  const others = conditions.filter((c) => c.type !== 'OSReady');
  return { ...device, status: { ...status, conditions: [...others, condition] } };
}

/** "; health check web already fails (...): ..." for the Healthy/<id> conditions that are False; '' for none. */
function failingChecksNote(conditions: readonly Condition[], version: string): string {
  const failing = conditions
    .filter((c) => c.type.startsWith('Healthy/') && c.status === 'False')
    .map((c) => `${c.type.slice('Healthy/'.length)} (${c.message ?? c.reason})`);
  if (failing.length === 0) return '';
  const subject =
    failing.length === 1
      ? `health check ${failing[0]!} already fails`
      : `health checks ${failing.join(', ')} already fail`;
  return `; ${subject}: a trial boot of ${version} does not commit while a health check fails`;
}
