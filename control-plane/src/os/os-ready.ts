import type { Doc } from '../resources/resource-table.js';

/** The device with OSReady=False/Pending: a new version was asked for and the device has not acted yet. */
export function osReadyPending(device: Doc, version: string, now: string): Doc {
  const status = (device['status'] ?? {}) as Doc;
  const conditions = ((status['conditions'] ?? []) as Doc[]).filter((c) => c['type'] !== 'OSReady');
  const previous = ((status['conditions'] ?? []) as Doc[]).find((c) => c['type'] === 'OSReady');
  const pending = {
    type: 'OSReady',
    status: 'False',
    reason: 'Pending',
    message: `waiting for the device to install ${version}`,
    lastTransitionTime: previous && previous['status'] === 'False' ? previous['lastTransitionTime'] : now,
  };
  return { ...device, status: { ...status, conditions: [...conditions, pending] } };
}
