import type { RolloutCondition, RolloutDevice } from '../../src/rollout/index.js';

export const T0 = Date.parse('2024-05-01T12:00:00.000Z');
export const at = (ms: number): string => new Date(T0 + ms).toISOString();

export interface DeviceFacts {
  id: string;
  desired?: string;
  running?: string;
  online?: boolean;
  osReady?: [status: string, reason: string, message?: string, sinceMs?: number];
  health?: Record<string, [status: string, sinceMs?: number, message?: string]>;
  labels?: Record<string, string>;
  type?: string;
  slots?: string[];
}

/** A device record as the watch shows it. */
export function device(facts: DeviceFacts): RolloutDevice {
  const conditions: RolloutCondition[] = [];
  if (facts.osReady) {
    const [status, reason, message = '', since = 0] = facts.osReady;
    conditions.push({ type: 'OSReady', status, reason, message, lastTransitionTime: at(since) });
  }
  for (const [id, [status, since = 0, message = '']] of Object.entries(facts.health ?? {})) {
    const reason = status === 'True' ? 'Passing' : status === 'False' ? 'Failing' : 'Pending';
    conditions.push({ type: `Healthy/${id}`, status, reason, message, lastTransitionTime: at(since) });
  }
  return {
    name: `projects/p1/regions/eu/devices/${facts.id}`,
    metadata: { labels: facts.labels ?? {} },
    spec: facts.desired === undefined ? {} : { osVersion: facts.desired },
    status: {
      deviceInfo: {
        ...(facts.running !== undefined ? { osVersion: facts.running } : {}),
        ...(facts.type !== undefined ? { deviceType: facts.type } : {}),
      },
      connectionStatus: facts.online === false ? 'DISCONNECTED' : 'CONNECTED',
      conditions,
      ...(facts.slots
        ? { osUpdate: { slots: Object.fromEntries(facts.slots.map((v, i) => [i ? 'B' : 'A', { version: v }])) } }
        : {}),
    },
  };
}
