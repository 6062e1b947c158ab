import {
  ApiError,
  POWER_COMMANDS,
  deviceDefinition,
  invalidArgument,
  notFound,
  permissionOf,
  unavailable,
} from '@outpost/shared';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ResourceHandle } from '../resources/resource-handle.js';

/** How the methods reach a device (the gateway's `sendCommand`, bound late). */
export type SendCommand = (deviceName: string, command: string, args: unknown, timeoutMs: number) => Promise<unknown>;

/**
 * `POST /v1/{device}:reboot` and `:shutdown` (spec 000 "Remote power actions"): carried over the device's own
 * connection; the device answers, runs its on-shutdown hooks and goes down. UNAVAILABLE when it is offline.
 */
export function powerMethods(devices: ResourceHandle, sendCommand: SendCommand): CustomMethod[] {
  const method = (verb: 'reboot' | 'shutdown'): CustomMethod => ({
    plural: 'devices',
    verb,
    scope: 'resource',
    httpMethod: 'POST',
    permission: permissionOf(deviceDefinition, verb),
    handle: async ({ target, body }) => {
      if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
        throw invalidArgument(`:${verb} takes an empty body`);
      }
      if (devices.find(target) === undefined) throw notFound(`device "${target}" not found`);
      try {
        await sendCommand(target, POWER_COMMANDS[verb], undefined, 30_000);
      } catch (err) {
        if (err instanceof ApiError && err.status === 'UNAVAILABLE')
          throw unavailable(`cannot ${verb}: ${err.message}`);
        throw err;
      }
      return { name: target, action: verb === 'reboot' ? 'REBOOT' : 'SHUTDOWN' };
    },
  });
  return [method('reboot'), method('shutdown')];
}
