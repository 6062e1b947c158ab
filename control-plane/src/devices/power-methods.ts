import {
  ApiError,
  POWER_COMMANDS,
  deviceDefinition,
  invalidArgument,
  notFound,
  permissionOf,
  unavailable,
} from '@outpost/shared';
import type { Device } from '@outpost/shared';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ResourceHandle } from '../resources/resource-handle.js';

/** How the methods reach a device (the gateway's `sendCommand`, bound late). */
export type SendCommand = (deviceName: string, command: string, args: unknown, timeoutMs: number) => Promise<unknown>;

/**
 * `POST /v1/{device}:reboot` and `:shutdown` (spec 000 "Remote power actions"): carried over the device's own
 * connection; the device answers, runs its on-shutdown hooks and goes down. UNAVAILABLE when it is offline.
 */
export function powerMethods(devices: ResourceHandle<Device>, sendCommand: SendCommand): CustomMethod[] {
  const method = (verb: 'reboot' | 'shutdown'): CustomMethod => ({
    plural: 'devices',
    verb,
    scope: 'resource',
    httpMethod: 'POST',
    permission: permissionOf(deviceDefinition, verb),
    handle: async ({ target, body }) => {
      const args = verb === 'reboot' ? rebootArgs(body) : emptyBody(verb, body);
      if (devices.find(target) === undefined) throw notFound(`device "${target}" not found`);
      try {
        await sendCommand(target, POWER_COMMANDS[verb], args, 30_000);
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

const isPlainObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

function emptyBody(verb: string, body: unknown): undefined {
  if (body !== undefined && (!isPlainObject(body) || Object.keys(body).length > 0)) {
    throw invalidArgument(`:${verb} takes an empty body`);
  }
  return undefined;
}

/**
 * `:reboot`'s body: `{}` or `{force?: boolean, ignoreLocks?: boolean}`; either reboots although update locks are
 * held on the device (maintenance windows never hold back a reboot asked for).
 */
function rebootArgs(body: unknown): { force?: boolean; ignoreLocks?: boolean } | undefined {
  if (body === undefined) return undefined;
  if (!isPlainObject(body)) throw invalidArgument(':reboot takes an object body');
  const unknownKeys = Object.keys(body).filter((key) => key !== 'force' && key !== 'ignoreLocks');
  if (unknownKeys.length > 0)
    throw invalidArgument(`:reboot takes only force and ignoreLocks, not ${unknownKeys.join(', ')}`);
  const args: { force?: boolean; ignoreLocks?: boolean } = {};
  for (const key of ['force', 'ignoreLocks'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw invalidArgument(`:reboot's ${key} must be a boolean`);
    if (value) args[key] = true;
  }
  return Object.keys(args).length === 0 ? undefined : args;
}
