/** A device downloading an artifact, with what tells whether the credential it used still authenticates it. */
export interface DownloadingDevice {
  device: string;
  stillAuthenticates(): boolean;
}

/** An answer in progress that can be cut (an express Response). */
interface Cuttable {
  destroy(): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The artifact downloads devices have in progress: cut when the device's credential is revoked (told), or, for a
 * replica that was not told for a while (it did not listen), when a re-check finds the credential no longer works.
 * Another replica's notice may arrive after the device began a download here with its new credential: such a
 * notice cuts only the downloads whose credential no longer authenticates (cutRevoked).
 */
export class DeviceDownloads {
  private readonly byDevice = new Map<string, Map<Cuttable, DownloadingDevice>>();

  track(caller: DownloadingDevice, res: Cuttable): void {
    let open = this.byDevice.get(caller.device);
    if (!open) this.byDevice.set(caller.device, (open = new Map()));
    open.set(res, caller);
    res.once('close', () => {
      open.delete(res);
      if (open.size === 0 && this.byDevice.get(caller.device) === open) this.byDevice.delete(caller.device);
    });
  }

  /** Cuts every download of the device. */
  cut(device: string): void {
    const open = this.byDevice.get(device);
    this.byDevice.delete(device);
    for (const res of open?.keys() ?? []) res.destroy();
  }

  /** Cuts the downloads of the device whose credential no longer authenticates it; those with its current one go on. */
  cutRevoked(device: string): void {
    for (const [res, caller] of [...(this.byDevice.get(device) ?? [])]) if (!caller.stillAuthenticates()) res.destroy();
  }

  /** The devices with a download whose credential no longer authenticates them (revoked or rotated meanwhile). */
  revoked(): string[] {
    return [...this.byDevice]
      .filter(([, open]) => [...open.values()].some((caller) => !caller.stillAuthenticates()))
      .map(([device]) => device);
  }
}
