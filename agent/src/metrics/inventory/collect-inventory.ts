import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reportedDeviceInfoSchema } from '@outpost/shared';
import type { InventoryDeviceInfo } from './inventory-from-system-information.js';

/** How to start the collector process (collector-main.ts). */
export interface CollectorCommand {
  file: string;
  args: string[];
}

export interface CollectInventoryOptions {
  command: CollectorCommand;
  /** the collector is killed past this; default 60 s (dmidecode and lsblk answer in well under a second) */
  timeoutMs?: number;
}

// an inventory within the protocol's bounds is far smaller; a collector writing more is broken
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/**
 * Runs the collector in a child process and returns the inventory it wrote, checked against the protocol's
 * deviceInfo schema. The child exits once it has written (or is killed at the timeout), so nothing of
 * systeminformation stays in the agent.
 */
export function collectInventory(options: CollectInventoryOptions): Promise<InventoryDeviceInfo> {
  const { command } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: Error | undefined;
    const fail = (err: Error): void => {
      failure ??= err;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () => fail(new Error(`the inventory collector did not finish in ${options.timeoutMs ?? 60_000} ms`)),
      options.timeoutMs ?? 60_000,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_OUTPUT_BYTES)
        fail(new Error(`the inventory collector wrote over ${MAX_OUTPUT_BYTES} bytes`));
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.once('error', fail);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (failure !== undefined) return reject(failure);
      if (code !== 0) {
        const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
        return reject(new Error(`the inventory collector ${how}: ${stderr.trim()}`));
      }
      try {
        resolve(parseInventory(Buffer.concat(stdout).toString('utf8')));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/** The collector's output: one JSON object that must pass the protocol's deviceInfo schema. */
export function parseInventory(output: string): InventoryDeviceInfo {
  let json: unknown;
  try {
    json = JSON.parse(output);
  } catch {
    throw new Error(`the inventory collector wrote no JSON: ${output.slice(0, 200)}`);
  }
  const parsed = reportedDeviceInfoSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `the inventory collector's report is refused: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  const {
    deviceType: _deviceType,
    managedFeatures: _managedFeatures,
    osVersion: _osVersion,
    ...inventory
  } = parsed.data;
  return inventory;
}

/**
 * The collector next to this code, in whichever form it was loaded: the bundle (dist/inventory-collector.js,
 * beside dist/main.js and one level above dist/chunks/), tsc's output (dist/metrics/inventory/collector-main.js),
 * or the TypeScript sources run through tsx. Undefined where none is there.
 */
export function defaultCollectorCommand(moduleUrl: string = import.meta.url): CollectorCommand | undefined {
  const candidates = moduleUrl.endsWith('.ts')
    ? [{ relative: './collector-main.ts', args: ['--import', 'tsx'] }]
    : ['./collector-main.js', '../inventory-collector.js', './inventory-collector.js'].map((relative) => ({
        relative,
        args: [],
      }));
  for (const { relative, args } of candidates) {
    const script = fileURLToPath(new URL(relative, moduleUrl));
    if (existsSync(script)) return { file: process.execPath, args: [...args, script] };
  }
  return undefined;
}
