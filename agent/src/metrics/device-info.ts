import type { Address, DeviceInfo, ManagedFeatures, NetworkInterface } from '@outpost/shared';
import type { DeviceFacts } from './system-facts.js';

/** What the agent knows about itself beyond the machine's facts. */
export interface DeviceIdentityFacts {
  deviceType?: string;
  /** false on a customer's own Linux (boot backend `none`) */
  managesOs: boolean;
}

/** The device's info and addresses, from the machine's facts (no usage: the server derives it from metrics). */
export function deviceInfoFromFacts(
  facts: DeviceFacts,
  identity: DeviceIdentityFacts,
): { deviceInfo: DeviceInfo; addresses: Address[] } {
  const networkInterfaces = interfacesOf(facts);
  const deviceInfo: DeviceInfo = {
    architecture: architectureOf(facts.os?.arch ?? process.arch),
    hardware: hardwareOf(facts.system?.model ?? ''),
    operatingSystem: facts.os?.platform === 'linux' || facts.os === undefined ? 'Linux' : facts.os.platform,
    hardwareInformation: {
      system: {
        manufacturer: facts.system?.manufacturer ?? '',
        productName: facts.system?.model ?? '',
        version: facts.system?.version ?? '',
        serialNumber: meaningful(facts.system?.serial),
      },
      cpu: {
        model: [facts.cpu?.manufacturer, facts.cpu?.brand].filter(Boolean).join(' '),
        cores: facts.cpu?.cores ?? 0,
        speedGHz: facts.cpu?.speed ?? 0,
      },
      memory: { totalBytes: facts.memoryTotalBytes ?? 0 },
      disks: (facts.disks ?? []).map((disk) => ({
        name: disk.device || disk.name,
        type: disk.type,
        sizeBytes: disk.size,
        model: disk.name,
      })),
    },
    networkInterfaces,
    managedFeatures: managedFeatures(identity.managesOs),
  };
  if (identity.deviceType !== undefined) deviceInfo.deviceType = identity.deviceType;
  if (facts.os !== undefined) {
    deviceInfo.kernelVersion = facts.os.kernel;
    deviceInfo.osImage = [facts.os.distro, facts.os.release, facts.os.codename ? `(${facts.os.codename})` : '']
      .filter(Boolean)
      .join(' ');
  }
  const bios = facts.bios;
  if (bios !== undefined && (bios.vendor || bios.version) && deviceInfo.hardwareInformation !== undefined) {
    deviceInfo.hardwareInformation.bios = {
      vendor: bios.vendor,
      biosVersion: bios.version,
      releaseDate: bios.releaseDate,
    };
  }
  return { deviceInfo, addresses: addressesOf(networkInterfaces) };
}

function interfacesOf(facts: DeviceFacts): Record<string, NetworkInterface> {
  const result: Record<string, NetworkInterface> = {};
  // code-unit order: localeCompare would load ICU collation data (MiBs) into an agent that needs none
  const byName = Object.entries(facts.interfaces).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, addresses = []] of byName) {
    if (addresses.length === 0 || addresses.every((a) => a.internal)) continue;
    result[name] = {
      interfaceName: name,
      ipAddressV4: addresses.filter((a) => a.family === 'IPv4').map((a) => a.address),
      ipAddressV6: addresses.filter((a) => a.family === 'IPv6').map((a) => a.address),
      mac: addresses[0]?.mac ?? '',
    };
  }
  return result;
}

/** status.addresses: every non-link-local address of every non-loopback interface. */
export function addressesOf(interfaces: Record<string, NetworkInterface>): Address[] {
  return Object.values(interfaces).flatMap((nic) =>
    [...(nic.ipAddressV4 ?? []), ...(nic.ipAddressV6 ?? []).filter((a) => !a.toLowerCase().startsWith('fe80:'))].map(
      (address): Address => ({ address, type: 'InternalIP' }),
    ),
  );
}

export function managedFeatures(managesOs: boolean): ManagedFeatures {
  return { os: managesOs, osUpgrade: managesOs };
}

const ARCHITECTURES: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

/** node's (and systeminformation's) architecture names as Debian's: x64 -> amd64. */
export const architectureOf = (arch: string): string => ARCHITECTURES[arch] ?? arch;

/** `raspberrypi` or `generic`, from the system's model. */
export const hardwareOf = (model: string): string => (/raspberry/i.test(model) ? 'raspberrypi' : 'generic');

/** Unknown values may arrive as '-' or firmware placeholders. */
function meaningful(value: string | undefined): string {
  if (value === undefined || value === '-' || /^(default string|to be filled by o\.e\.m\.)$/i.test(value)) return '';
  return value;
}
