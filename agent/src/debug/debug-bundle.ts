import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { create as createTar } from 'tar';
import type { AgentPaths } from '../config/paths.js';
import type { Logger } from '../logging/logger.js';
import type { SystemFactsSource } from '../metrics/system-facts.js';
import type { ChannelServiceHandler } from '../transfer/channel-services.js';
import type { WorkloadManager } from '../workloads/workload-manager.js';
import { redactSecrets, redactText, secretValuesIn } from './redact.js';

const AGENT_LOG_TAIL = 8 * 1024 * 1024;
const SERVICE_LOG_TAIL = 1024 * 1024;

export interface DebugBundleSources {
  paths: AgentPaths;
  agentVersion: string;
  bootId: string;
  deviceName: string;
  /** the agent's own log file, when it writes one */
  logFile?: string;
  facts: SystemFactsSource;
  workloads?: WorkloadManager;
  logger: Logger;
  /** the journal of this unit is included where journalctl exists */
  journalUnit?: string;
}

/** Commands whose output helps support; each is optional (missing tools are noted, not fatal). */
const SYSTEM_COMMANDS: Record<string, [string, string[]]> = {
  'uname.txt': ['uname', ['-a']],
  'df.txt': ['df', ['-h']],
  'mounts.txt': ['cat', ['/proc/mounts']],
  'ip-addr.txt': ['ip', ['addr']],
  'ip-route.txt': ['ip', ['route']],
  'processes.txt': ['ps', ['aux']],
  'uptime.txt': ['uptime', []],
};

/**
 * Gathers the agent log, the journal where present, agent state, system information, pod states and logs, and
 * the configuration into `dir`, then redacts every file: the secrets the agent holds (credential, tokens,
 * passwords of its spec and of the pods' environments) wherever they appear, and whatever looks secret (see
 * `redactText`: a process list shows other processes' secrets). The credential file itself is never included.
 */
export async function collectDebugBundle(sources: DebugBundleSources, dir: string): Promise<string[]> {
  const notes: string[] = [];
  const put = async (name: string, content: string | Buffer): Promise<void> => {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  };
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  const attempt = async (what: string, step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (err) {
      notes.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const { paths } = sources;

  await put(
    'bundle.json',
    json({
      deviceName: sources.deviceName,
      agentVersion: sources.agentVersion,
      bootId: sources.bootId,
      collectTime: new Date().toISOString(),
    }),
  );
  if (sources.logFile !== undefined) {
    const logFile = sources.logFile;
    await attempt('agent log', async () => put('agent/droplet.log', await tail(logFile, AGENT_LOG_TAIL)));
  } else notes.push('agent log: the agent logs to stdout only (see the journal)');
  if (sources.journalUnit !== undefined) {
    const result = await execa(
      'journalctl',
      ['--unit', sources.journalUnit, '--no-pager', '--lines', '20000', '--output', 'short-iso'],
      { reject: false, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
    );
    if (result.exitCode === 0) await put('agent/journal.txt', result.stdout);
    else notes.push(`journal: ${result.shortMessage}`);
  }
  for (const [name, file] of [
    ['agent-state.json', paths.stateFile],
    ['os-update.json', paths.osProgressFile],
    ['desired-device.json', paths.desiredDeviceFile],
  ] as const) {
    await attempt(`state ${name}`, async () =>
      put(`agent/state/${name}`, json(redactSecrets(JSON.parse(await readFile(file, 'utf8'))))),
    );
  }
  await attempt('configuration', async () =>
    put('config/droplet.json', json(redactSecrets(JSON.parse(await readFile(paths.configFile, 'utf8'))))),
  );
  await attempt('hooks', async () => put('config/hooks.txt', await listing(join(paths.configDir, 'hooks'))));
  await attempt('system facts', async () => {
    const [device, usage] = await Promise.all([sources.facts.deviceFacts(), sources.facts.usageFacts()]);
    await put('system/facts.json', json({ device, usage }));
  });
  for (const [name, [command, args]] of Object.entries(SYSTEM_COMMANDS)) {
    const result = await execa(command, args, { reject: false, timeout: 15_000, all: true });
    if (result.exitCode === 0) await put(`system/${name}`, result.all ?? '');
    else notes.push(`${command}: ${result.shortMessage}`);
  }
  if (sources.workloads !== undefined) {
    const workloads = sources.workloads;
    await put('pods/status.json', json(workloads.reports()));
    for (const log of workloads.logFiles()) {
      const podId = log.pod.split('/').at(-1) ?? log.pod;
      await attempt(`log of ${log.pod} ${log.service}`, async () =>
        put(`pods/${podId}/${log.service}.log`, await tail(log.path, SERVICE_LOG_TAIL)),
      );
    }
  }
  await put('notes.txt', notes.length === 0 ? 'nothing was missing\n' : `${notes.join('\n')}\n`);
  await redactFiles(dir, await knownSecrets(sources));
  return notes;
}

/** The secret values the agent holds: its credential and those of its configuration, state and spec. */
async function knownSecrets(sources: DebugBundleSources): Promise<Set<string>> {
  const { paths } = sources;
  const found = new Set<string>();
  const credential = await readFile(paths.credentialFile, 'utf8').catch(() => undefined);
  if (credential !== undefined && credential.trim() !== '') found.add(credential.trim());
  for (const file of [paths.configFile, paths.desiredDeviceFile, paths.stateFile, paths.osProgressFile]) {
    try {
      secretValuesIn(JSON.parse(await readFile(file, 'utf8')) as unknown, found);
    } catch {
      // missing or unreadable: it holds nothing the bundle could show
    }
  }
  for (const pod of sources.workloads?.reports() ?? []) secretValuesIn(pod, found);
  return found;
}

/** Rewrites every file under `dir` with its secrets redacted. */
async function redactFiles(dir: string, known: ReadonlySet<string>): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    const text = await readFile(path, 'utf8');
    const redacted = redactText(text, known);
    if (redacted !== text) await writeFile(path, redacted);
  }
}

/** `debug.bundle`: collects the bundle and streams it as a tar.gz over the channel. */
export function debugBundleService(sources: DebugBundleSources): ChannelServiceHandler {
  return async (_args, channel) => ({
    run: async () => {
      const staging = await mkdtemp(join(tmpdir(), 'outpost-debug-'));
      try {
        const folder = `outpost-debug-${sources.deviceName.split('/').at(-1) ?? 'device'}`;
        await mkdir(join(staging, folder));
        await collectDebugBundle(sources, join(staging, folder));
        const archive = createTar({ gzip: true, cwd: staging, portable: true }, [folder]);
        for await (const chunk of archive as AsyncIterable<Buffer>) await channel.write(chunk);
        await channel.end();
        sources.logger.info('debug bundle sent');
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  });
}

/** The last `bytes` of a file. */
async function tail(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    return buffer;
  } finally {
    await file.close();
  }
}

/** `mode name` lines of a folder's files (which hooks exist and whether they are executable). */
async function listing(dir: string): Promise<string> {
  const names = (await readdir(dir)).sort();
  const lines = await Promise.all(
    names.map(async (name) => `${((await stat(join(dir, name))).mode & 0o7777).toString(8).padStart(4, '0')} ${name}`),
  );
  return `${lines.join('\n')}\n`;
}
