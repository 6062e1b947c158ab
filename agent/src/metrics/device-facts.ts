import { arch, cpus, release } from 'node:os';
import { colonFields, listDir, readText, readValue } from './sys-files.js';

export interface OsFacts {
  platform: string;
  distro: string;
  release: string;
  codename: string;
  kernel: string;
  arch: string;
}

export interface SystemModelFacts {
  manufacturer: string;
  model: string;
  version: string;
  serial: string;
}

export interface CpuFacts {
  manufacturer: string;
  brand: string;
  /** logical cores */
  cores: number;
  /** nominal speed, GHz */
  speed: number;
}

export interface DiskFacts {
  /** e.g. /dev/sda */
  device: string;
  /** the model, '' when the disk reports none */
  name: string;
  /** HD, SSD or NVMe */
  type: string;
  size: number;
  vendor: string;
}

export interface BiosFacts {
  vendor: string;
  version: string;
  /** YYYY-MM-DD where the firmware gives a date */
  releaseDate: string;
}

const DMI = '/sys/class/dmi/id';

/** The distribution (os-release), the kernel and the architecture. */
export async function readOsRelease(files = ['/etc/os-release', '/usr/lib/os-release']): Promise<OsFacts> {
  let fields = new Map<string, string>();
  for (const file of files) {
    const text = await readText(file);
    if (text === undefined) continue;
    fields = parseOsRelease(text);
    break;
  }
  return {
    platform: process.platform,
    distro: fields.get('NAME') ?? '',
    release: fields.get('VERSION_ID') ?? '',
    codename: fields.get('VERSION_CODENAME') ?? '',
    kernel: release(),
    arch: arch(),
  };
}

/** os-release(5): KEY=value lines, values optionally quoted, with shell-style backslash escapes. */
export function parseOsRelease(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z0-9_]+)=(.*?)\s*$/.exec(line);
    if (match === null) continue;
    let value = match[2] ?? '';
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\([\\"$`])/g, '$1');
    }
    fields.set(match[1] ?? '', value);
  }
  return fields;
}

/** Maker, model and serial: DMI on PCs and VMs, the device tree on boards (Raspberry Pi, ...). */
export async function readSystem(dmi = DMI, deviceTree = '/proc/device-tree'): Promise<SystemModelFacts | undefined> {
  const [manufacturer, model, version, serial] = await Promise.all(
    ['sys_vendor', 'product_name', 'product_version', 'product_serial'].map(async (name) =>
      withoutPlaceholder(await readValue(`${dmi}/${name}`)),
    ),
  );
  if (manufacturer || model) {
    return { manufacturer: manufacturer ?? '', model: model ?? '', version: version ?? '', serial: serial ?? '' };
  }
  const boardModel = await readValue(`${deviceTree}/model`);
  if (boardModel === '') return undefined;
  return { manufacturer: '', model: boardModel, version: '', serial: await readValue(`${deviceTree}/serial-number`) };
}

/** The firmware's vendor, version and date (DMI); undefined where there is no DMI. */
export async function readBios(dmi = DMI): Promise<BiosFacts | undefined> {
  const [vendor, version, date] = await Promise.all(
    ['bios_vendor', 'bios_version', 'bios_date'].map((name) => readValue(`${dmi}/${name}`)),
  );
  if (!vendor && !version) return undefined;
  return { vendor: vendor ?? '', version: version ?? '', releaseDate: isoDate(date ?? '') };
}

/** DMI dates are MM/DD/YYYY. */
export function isoDate(dmiDate: string): string {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(dmiDate);
  return match === null ? dmiDate : `${match[3]}-${match[1]}-${match[2]}`;
}

/** Vendor, brand and speed from the CPU's model string; ARM boards name their vendor in /proc/cpuinfo only. */
export async function readCpu(cpuinfo = '/proc/cpuinfo'): Promise<CpuFacts> {
  const all = cpus();
  const first = all[0];
  const facts = cpuFactsOf(first?.model ?? '', first?.speed ?? 0, all.length);
  if (facts.manufacturer === '') {
    const implementer = colonFields((await readText(cpuinfo)) ?? '').get('CPU implementer');
    facts.manufacturer = ARM_IMPLEMENTERS[implementer ?? ''] ?? '';
  }
  return facts;
}

const ARM_IMPLEMENTERS: Readonly<Record<string, string>> = {
  '0x41': 'ARM',
  '0x42': 'Broadcom',
  '0x43': 'Cavium',
  '0x48': 'HiSilicon',
  '0x4e': 'NVIDIA',
  '0x51': 'Qualcomm',
  '0x61': 'Apple',
  '0xc0': 'Ampere',
};

/** e.g. "Intel(R) Xeon(R) CPU @ 2.20GHz" -> Intel, Xeon, 2.2 GHz. */
export function cpuFactsOf(model: string, speedMHz: number, cores: number): CpuFacts {
  const vendor = /\b(intel|amd)\b/i.exec(model)?.[1];
  const manufacturer = vendor === undefined ? '' : vendor.toLowerCase() === 'intel' ? 'Intel' : 'AMD';
  const nominal = /@\s*([\d.]+)\s*GHz/i.exec(model)?.[1];
  const brand = model
    .replace(/\((R|TM|C)\)/gi, '')
    .replace(/@\s*[\d.]+\s*GHz/i, '')
    .replace(/\b(intel|amd|cpu|processor)\b/gi, '')
    .replace(/^unknown$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  const speed = nominal === undefined ? Math.round(speedMHz / 10) / 100 : Number(nominal);
  return { manufacturer, brand, cores, speed: Number.isFinite(speed) ? speed : 0 };
}

/** Whole disks (/sys/block), without loop, RAM, device-mapper, RAID and optical devices. */
export async function readDisks(sysBlock = '/sys/block'): Promise<DiskFacts[]> {
  const names = (await listDir(sysBlock)).filter((name) => !/^(loop|ram|zram|dm-|md|sr|fd|nbd)/.test(name)).sort();
  const disks = await Promise.all(
    names.map(async (name): Promise<DiskFacts | undefined> => {
      const dir = `${sysBlock}/${name}`;
      const [sectors, model, vendor, rotational] = await Promise.all([
        readValue(`${dir}/size`),
        readValue(`${dir}/device/model`),
        readValue(`${dir}/device/vendor`),
        readValue(`${dir}/queue/rotational`),
      ]);
      const size = Number(sectors) * 512;
      if (!(size > 0)) return undefined;
      const type = name.startsWith('nvme') ? 'NVMe' : rotational === '0' ? 'SSD' : 'HD';
      // virtio disks name their vendor by PCI id only
      return { device: `/dev/${name}`, name: model, type, size, vendor: /^0x[0-9a-f]+$/i.test(vendor) ? '' : vendor };
    }),
  );
  return disks.filter((disk): disk is DiskFacts => disk !== undefined);
}

/** Firmware fills unknown DMI strings with placeholders. */
export function withoutPlaceholder(value: string): string {
  return /^(to be filled by o\.e\.m\.|default string|not specified|not applicable|none|system manufacturer|system product name|system version|system serial number|0+)$/i.test(
    value,
  )
    ? ''
    : value;
}
