import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { cpus, networkInterfaces, release, totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { reportedDeviceInfoSchema } from '@outpost/shared';
import {
  collectInventory,
  defaultCollectorCommand,
  parseInventory,
} from '../../../src/metrics/inventory/collect-inventory.js';
import type { CollectorCommand } from '../../../src/metrics/inventory/collect-inventory.js';

// the collector as the agent runs it from its sources: collector-main.ts through tsx
function collector(): CollectorCommand {
  const command = defaultCollectorCommand();
  if (command === undefined) throw new Error('no collector beside collect-inventory.ts');
  return command;
}

const nodeScript = (script: string): CollectorCommand => ({ file: process.execPath, args: ['-e', script] });

/** This process's children whose command line names the collector's script (other test files run their own). */
async function runningCollectors(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [cmdline, stat] = await Promise.all(
      ['cmdline', 'stat'].map((file) => readFile(`/proc/${entry}/${file}`, 'utf8').catch(() => '')),
    );
    // stat: "pid (comm) state ppid ...", comm may hold spaces
    const parent = Number(stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === process.pid && cmdline?.includes('collector-main')) pids.push(Number(entry));
  }
  return pids;
}

describe('the inventory collector on this machine', () => {
  it('fills deviceInfo from systeminformation, within the protocol schema', async () => {
    const inventory = await collectInventory({ command: collector() });

    expect(reportedDeviceInfoSchema.safeParse(inventory).success).toBe(true);
    expect(inventory.operatingSystem).toBe('Linux');
    expect(inventory.kernelVersion).toBe(release());
    expect(inventory.architecture).toBe(process.arch === 'x64' ? 'amd64' : process.arch);
    const osRelease = await readFile('/etc/os-release', 'utf8');
    const distro = /^NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1] ?? '';
    expect(inventory.osImage).toContain(distro);

    const hardware = inventory.hardwareInformation;
    expect(hardware?.cpu?.cores).toBe(cpus().length);
    expect(hardware?.cpu?.model).not.toBe('');
    expect(hardware?.memory?.totalBytes).toBe(totalmem());
    // the memory layout: DMI's modules, or the whole memory as one bank where there is no DMI
    expect(hardware?.memory?.modules?.length).toBeGreaterThan(0);
    expect(hardware?.fileSystems?.map((fs) => fs.mount)).toContain('/');
    expect(hardware?.disks?.length).toBeGreaterThan(0);
    expect(hardware?.system?.productName ?? hardware?.system?.manufacturer).toBeTruthy();

    // every interface with an address but loopback, with all of node's addresses
    for (const [name, addresses = []] of Object.entries(networkInterfaces())) {
      if (addresses.every((a) => a.internal)) continue;
      expect(inventory.networkInterfaces?.[name]?.mac).toBe(addresses[0]?.mac);
      const v4 = addresses.filter((a) => a.family === 'IPv4').map((a) => a.address);
      expect(inventory.networkInterfaces?.[name]?.ipAddressV4 ?? []).toEqual(v4);
    }
    expect(inventory.networkInterfaces?.['lo']).toBeUndefined();
  }, 30_000);

  it('leaves no collector process behind once it has answered', async () => {
    expect(await runningCollectors()).toEqual([]);
    await collectInventory({ command: collector() });
    expect(await runningCollectors()).toEqual([]);
  }, 30_000);

  it('exits by itself after writing the inventory', async () => {
    const command = collector();
    const child = spawn(command.file, command.args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(exitCode).toBe(0);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(() => parseInventory(output)).not.toThrow();
  }, 30_000);
});

describe('collectInventory', () => {
  it('kills a collector that does not answer in time', async () => {
    const started = Date.now();
    await expect(
      collectInventory({ command: nodeScript('setInterval(() => {}, 1000)'), timeoutMs: 300 }),
    ).rejects.toThrow(/did not finish in 300 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a report the protocol would refuse, naming the field', async () => {
    await expect(
      collectInventory({
        command: nodeScript(`console.log(JSON.stringify({ hardwareInformation: { cpu: { cores: -1 } } }))`),
      }),
    ).rejects.toThrow(/refused: hardwareInformation\.cpu\.cores/);
  });

  it('refuses output that is not JSON', async () => {
    await expect(collectInventory({ command: nodeScript('console.log("lsblk: not found")') })).rejects.toThrow(
      /wrote no JSON: lsblk: not found/,
    );
  });

  it('reports a collector that fails with its message', async () => {
    await expect(
      collectInventory({ command: nodeScript('console.error("cannot read the inventory: boom"); process.exit(1)') }),
    ).rejects.toThrow(/exited with 1: cannot read the inventory: boom/);
  });

  it('keeps only the inventory: identity fields a collector wrote are left to the agent', () => {
    const inventory = parseInventory(JSON.stringify({ kernelVersion: '6.1', deviceType: 'x', osVersion: '9' }));
    expect(inventory).toEqual({ kernelVersion: '6.1' });
  });
});
