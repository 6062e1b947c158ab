import type { AgentMessage } from '@outpost/shared';

/** A status like a droplet's after boot, with one value that changes with every message. */
export function statusMessage(device: number, seq: number, markerUnit: number): AgentMessage {
  return {
    type: 'status',
    seq,
    deviceInfo: {
      osVersion: '1.4.2',
      deviceType: 'qemu-x86-64',
      architecture: 'amd64',
      hardware: 'generic',
      operatingSystem: 'Linux',
      kernelVersion: '6.1.0-28-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      networkInterfaces: {
        eth0: { interfaceName: 'eth0', ipAddressV4: [ipOf(device)], mac: macOf(device) },
      },
      hardwareInformation: { memory: { totalBytes: seq * markerUnit } },
      managedFeatures: { os: true, osUpgrade: true },
    },
    conditions: [
      {
        type: 'OSReady',
        status: 'True',
        reason: 'Running',
        message: 'running 1.4.2 from slot A',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
    ],
    addresses: [{ address: ipOf(device), type: 'InternalIP' }],
  };
}

const ipOf = (device: number): string => `10.${(device >> 16) & 255}.${(device >> 8) & 255}.${device & 255}`;
const macOf = (device: number): string =>
  `02:00:00:${[(device >> 16) & 255, (device >> 8) & 255, device & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
