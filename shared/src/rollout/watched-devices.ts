import type { RolloutDevice } from './device-record.js';

/** One response of a stateless device watch, as much of it as a rollout reads. */
export interface DeviceWatchResponse {
  deviceChanges?: readonly ({ current?: { device?: RolloutDevice }; removed?: { name?: string } } | undefined)[];
  isCurrent?: boolean;
  resumeToken?: string;
  isHardReset?: boolean;
  isSoftReset?: boolean;
}

/**
 * The devices a stateless watch describes, kept from its responses: `current` puts a device, `removed` drops
 * it, a hard reset starts a new snapshot (devices it does not send again are gone once it is current). The
 * collection is consistent only when the last response was current.
 */
export class WatchedDevices {
  readonly devices = new Map<string, RolloutDevice>();
  /** the position to resume the watch from */
  resumeToken: string | undefined;
  /** whether the devices are the collection as of resumeToken (false in the middle of a snapshot) */
  current = false;
  private resending: Set<string> | undefined;

  apply(response: DeviceWatchResponse): void {
    if (response.isHardReset) this.resending = new Set();
    for (const change of response.deviceChanges ?? []) {
      const device = change?.current?.device;
      if (device && typeof device.name === 'string') {
        this.devices.set(device.name, device);
        this.resending?.add(device.name);
      }
      const removed = change?.removed?.name;
      if (typeof removed === 'string') this.devices.delete(removed);
    }
    if (response.resumeToken) this.resumeToken = response.resumeToken;
    // a message with no changes that ends no set (the size message after a snapshot) leaves the state as it is
    const partOfASet =
      (response.deviceChanges?.length ?? 0) > 0 || response.isHardReset === true || response.isSoftReset === true;
    if (partOfASet || response.isCurrent === true) this.current = response.isCurrent === true;
    if (this.current && this.resending) {
      for (const name of [...this.devices.keys()]) if (!this.resending.has(name)) this.devices.delete(name);
      this.resending = undefined;
    }
  }
}
