import { statfs } from 'node:fs/promises';
import { cpus, freemem, totalmem } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { colonFields, listDir, readText, readValue } from './sys-files.js';

export interface MemoryFacts {
  total: number;
  /** what can be had without swapping (MemAvailable) */
  available: number;
}

export interface FilesystemFacts {
  fs: string;
  type: string;
  size: number;
  used: number;
  mount: string;
}

export interface CpuTimes {
  busy: number;
  idle: number;
}

/** Busy and idle time of all cores together since boot (ms). */
export function cpuTimes(): CpuTimes {
  let busy = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return { busy, idle };
}

/**
 * CPU usage in % of all cores since the previous call; the first call measures over `firstWindowMs` rather
 * than report the average since boot.
 */
export function cpuLoadMeter(
  readTimes: () => CpuTimes = cpuTimes,
  firstWindowMs = 500,
): { percent(): Promise<number> } {
  let previous: CpuTimes | undefined;
  let last = 0;
  return {
    async percent() {
      if (previous === undefined) {
        previous = readTimes();
        await sleep(firstWindowMs);
      }
      const now = readTimes();
      const busy = now.busy - previous.busy;
      const total = busy + now.idle - previous.idle;
      previous = now;
      if (total > 0) last = (busy / total) * 100;
      return last;
    },
  };
}

/** Total and available memory (/proc/meminfo; node's totals elsewhere). */
export async function readMemory(meminfo = '/proc/meminfo'): Promise<MemoryFacts> {
  const text = await readText(meminfo);
  if (text !== undefined) {
    const fields = colonFields(text);
    const kib = (key: string): number => Number.parseInt(fields.get(key) ?? '', 10) * 1024;
    const total = kib('MemTotal');
    const available = kib('MemAvailable');
    if (total > 0 && available >= 0) return { total, available };
  }
  return { total: totalmem(), available: freemem() };
}

/** Mounts whose statfs could hang (network) or trigger a mount (autofs); `df -l` leaves them out too. */
const SKIPPED_TYPES = new Set([
  'autofs',
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'ncpfs',
  'afs',
  'ceph',
  'glusterfs',
  'fuse.sshfs',
  'fuse.glusterfs',
  'fuse.s3fs',
]);

/** Size and use of every mounted filesystem with a size (pseudo filesystems have none). */
export async function readFilesystems(mounts = '/proc/self/mounts'): Promise<FilesystemFacts[]> {
  const entries = parseMounts((await readText(mounts)) ?? '').filter((m) => !SKIPPED_TYPES.has(m.type));
  const sized = await Promise.all(
    entries.map(async (entry): Promise<FilesystemFacts | undefined> => {
      try {
        const stats = await statfs(entry.mount);
        const size = stats.blocks * stats.bsize;
        if (!(size > 0)) return undefined;
        return { ...entry, size, used: Math.max(0, (stats.blocks - stats.bfree) * stats.bsize) };
      } catch {
        return undefined;
      }
    }),
  );
  return sized.filter((fs): fs is FilesystemFacts => fs !== undefined);
}

/** fstab(5) lines of /proc/mounts: device, mount point and type, with spaces and the like octal-escaped. */
export function parseMounts(text: string): { fs: string; mount: string; type: string }[] {
  const mounts: { fs: string; mount: string; type: string }[] = [];
  for (const line of text.split('\n')) {
    const [fs, mount, type] = line.split(' ');
    if (fs === undefined || mount === undefined || type === undefined) continue;
    mounts.push({ fs: unescapeOctal(fs), mount: unescapeOctal(mount), type });
  }
  return mounts;
}

const unescapeOctal = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/**
 * The CPU's temperature in °C: the package sensor of a hwmon chip (coretemp, k10temp), else the mean of its
 * cores, else a CPU thermal zone (boards), else the first thermal zone; null when the machine has none.
 */
export async function readTemperature(sysClass = '/sys/class'): Promise<number | null> {
  const sensors = await hwmonSensors(`${sysClass}/hwmon`);
  const main = sensors.find((s) => /^(package id \d+|physical id \d+|tctl|tdie|tccd1)$/i.test(s.label));
  if (main !== undefined) return main.celsius;
  const cores = sensors.filter((s) => /^core \d+/i.test(s.label));
  if (cores.length > 0) return round1(cores.reduce((sum, s) => sum + s.celsius, 0) / cores.length);

  const zones = await thermalZones(`${sysClass}/thermal`);
  const zone = zones.find((z) => /cpu|x86_pkg|soc/i.test(z.type)) ?? zones[0];
  return zone?.celsius ?? null;
}

async function hwmonSensors(dir: string): Promise<{ label: string; celsius: number }[]> {
  const sensors: { label: string; celsius: number }[] = [];
  for (const chip of await listDir(dir)) {
    for (const file of await listDir(`${dir}/${chip}`)) {
      const input = /^(temp\d+)_label$/.exec(file)?.[1];
      if (input === undefined) continue;
      const celsius = milliCelsius(await readValue(`${dir}/${chip}/${input}_input`));
      if (celsius !== undefined) sensors.push({ label: await readValue(`${dir}/${chip}/${file}`), celsius });
    }
  }
  return sensors;
}

async function thermalZones(dir: string): Promise<{ type: string; celsius: number }[]> {
  const zones: { type: string; celsius: number }[] = [];
  const names = (await listDir(dir)).filter((name) => name.startsWith('thermal_zone'));
  names.sort((a, b) => Number(a.slice('thermal_zone'.length)) - Number(b.slice('thermal_zone'.length)));
  for (const name of names) {
    const celsius = milliCelsius(await readValue(`${dir}/${name}/temp`));
    if (celsius !== undefined) zones.push({ type: await readValue(`${dir}/${name}/type`), celsius });
  }
  return zones;
}

function milliCelsius(value: string): number | undefined {
  const milli = Number.parseInt(value, 10);
  return Number.isFinite(milli) ? round1(milli / 1000) : undefined;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
