import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DeviceDownloads } from '../../src/os/device-downloads.js';

/** An answer in progress: destroying it closes it, as an express Response does. */
class Answer extends EventEmitter {
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('device downloads in progress', () => {
  it('names the devices whose credential no longer authenticates them, and cuts their downloads', () => {
    const downloads = new DeviceDownloads();
    const credentials = new Map([
      ['devices/kept', true],
      ['devices/revoked', true],
    ]);
    const caller = (device: string) => ({ device, stillAuthenticates: () => credentials.get(device) === true });
    const kept = new Answer();
    const revoked = [new Answer(), new Answer()];
    downloads.track(caller('devices/kept'), kept);
    for (const answer of revoked) downloads.track(caller('devices/revoked'), answer);
    expect(downloads.revoked()).toEqual([]);

    credentials.set('devices/revoked', false); // revoked elsewhere, not told
    expect(downloads.revoked()).toEqual(['devices/revoked']);
    downloads.cut('devices/revoked');
    expect(revoked.map((answer) => answer.destroyed)).toEqual([true, true]);
    expect(kept.destroyed).toBe(false);
    expect(downloads.revoked()).toEqual([]);
  });

  it('on a late notice, cuts only the downloads whose own credential no longer authenticates the device', () => {
    const downloads = new DeviceDownloads();
    const withOld = new Answer();
    const withNew = new Answer();
    downloads.track({ device: 'devices/rotated', stillAuthenticates: () => false }, withOld);
    downloads.track({ device: 'devices/rotated', stillAuthenticates: () => true }, withNew);
    downloads.cutRevoked('devices/rotated');
    expect([withOld.destroyed, withNew.destroyed]).toEqual([true, false]);
    expect(downloads.revoked()).toEqual([]);
    downloads.cutRevoked('devices/unknown'); // no download: nothing to cut
  });

  it('forgets a download once it ends', () => {
    const downloads = new DeviceDownloads();
    const answer = new Answer();
    downloads.track({ device: 'devices/done', stillAuthenticates: () => false }, answer);
    expect(downloads.revoked()).toEqual(['devices/done']);
    answer.emit('close');
    expect(downloads.revoked()).toEqual([]);
  });
});
