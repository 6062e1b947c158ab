import { ApiError } from '@outpost/shared';
import type { Device, OutpostClient } from '@outpost/shared';

/**
 * Follows one device through a single-resource watch until `predicate` holds (no polling, no sleeps);
 * fails after `timeoutMs` naming what was last seen. The default leaves room for a droplet started through tsx,
 * which on a loaded 2-core machine may take half a minute to connect.
 */
export async function waitForDevice(
  client: OutpostClient,
  name: string,
  predicate: (device: Device) => boolean,
  timeoutMs = 45_000,
): Promise<Device> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let last: Device | undefined;
  try {
    while (!controller.signal.aborted) {
      try {
        for await (const message of client.watch<{ change: Record<string, { device?: Device }> }>(
          `/v1/${name}:watch`,
          {},
          controller.signal,
        )) {
          const change = Object.values(message.change)[0];
          if (change?.device) last = change.device;
          if (last && predicate(last)) return last;
        }
      } catch (err) {
        // a device that does not exist yet (self-registration) is waited for, not an error
        if (!(err instanceof ApiError && err.status === 'NOT_FOUND')) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${name}; last seen: ${JSON.stringify(last?.status ?? last)}`,
  );
}
