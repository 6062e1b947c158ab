import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  ApiError,
  DEVICE_PATTERN,
  TreeWriter,
  failedPrecondition,
  lastSegment,
  placeEntry,
  prepareTreeSource,
} from '@outpost/shared';
import type { FileProgress, TreeRoot } from '@outpost/shared';
import type { Command } from 'commander';
import { connectionOf } from './connection.js';
import type { ContextFactory } from './context.js';
import { progressBar } from './progress.js';
import type { Progress } from './progress.js';
import { UsageError } from './usage-error.js';
import { debugBundleDownload, downloadTree, suggestedFileName, uploadTree } from '../transfer/transfer-client.js';

/** `<device_name>:<path>`, the remote side of a copy. */
export interface RemoteEndpoint {
  device: string;
  path: string;
}

const REMOTE = /^(projects\/[^/:]+\/regions\/[^/:]+\/devices\/[^/:]+):(.*)$/s;

/** The remote endpoint an argument names, or undefined for a local path; a malformed device id is a usage error. */
export function parseRemote(argument: string): RemoteEndpoint | undefined {
  const match = REMOTE.exec(argument);
  if (match === null) return undefined;
  const device = match[1]!;
  const problem = DEVICE_PATTERN.problemWithName(device);
  if (problem !== null) throw new UsageError(`invalid device name "${device}": ${problem.message}`);
  return { device, path: match[2]! };
}

interface ScpOptions {
  recursive?: boolean;
  verbose?: boolean;
}

/** `outpost devices scp` and `outpost devices collect-debug-bundle`. */
export function registerTransferCommands(group: Command, ctxFactory: ContextFactory): void {
  group
    .command('scp <source> <destination>')
    .description(
      'copy files to or from a device over its own connection; exactly one side is <device_name>:<path> (an upload needs an absolute path)',
    )
    .option('-r, --recursive', 'copy directories and their contents')
    .option('-v, --verbose', 'show a progress bar for every file')
    .action(async (source: string, destination: string, opts: ScpOptions, command: Command) => {
      const ctx = ctxFactory(command);
      const from = parseRemote(source);
      const to = parseRemote(destination);
      if (from !== undefined && to !== undefined) {
        throw new UsageError('copying between two devices is impossible: one side must be a local path');
      }
      if (from === undefined && to === undefined) {
        throw new UsageError('one of <source> and <destination> must be <device_name>:<path>');
      }
      const progress = opts.verbose === true ? fileProgress() : undefined;
      const connection = connectionOf(command);
      const interrupt = new AbortController();
      const onSignal = (): void => interrupt.abort();
      process.once('SIGINT', onSignal);
      try {
        if (to !== undefined) {
          if (!to.path.startsWith('/')) {
            throw new UsageError(`the device path "${to.path}" must be absolute (start with /) for an upload`);
          }
          const tree = await prepareTreeSource(source, opts.recursive === true);
          const summary = await uploadTree(connection, to.device, to.path, tree, {
            ...(progress === undefined ? {} : { onProgress: progress }),
            signal: interrupt.signal,
          });
          for (const skipped of summary.skipped ?? []) {
            ctx.note(`skipped ${printable(skipped.path)}: ${printable(skipped.reason)}`);
          }
          if (ctx.format !== 'table') ctx.output(summary);
          else if (opts.verbose === true)
            ctx.note(
              `copied ${summary.files} file(s), ${summary.bytes} bytes, to ${to.device}:${printable(summary.destination)}`,
            );
        } else if (from !== undefined) {
          if (from.path === '') throw new UsageError('the device path is empty');
          const name = downloadName(from.path);
          // what the device sends is untrusted: it names nothing, stays inside the destination, sets no set-id mode
          const writer = new TreeWriter({
            placeRoot: (root) => placeDownloadRoot(destination, name, root.kind),
            singleFile: opts.recursive !== true,
            refuseSetIdModes: true,
            ...(progress === undefined ? {} : { onProgress: progress }),
          });
          const summary = await downloadTree(
            connection,
            from.device,
            from.path,
            opts.recursive === true,
            writer,
            interrupt.signal,
          ).catch((err: unknown) => {
            throw err instanceof ApiError ? new ApiError(err.status, printable(err.message)) : err;
          });
          for (const skipped of summary.skipped) {
            ctx.note(`skipped ${printable(skipped.path)}: ${printable(skipped.reason)}`);
          }
          if (ctx.format !== 'table') ctx.output(summary);
          else if (opts.verbose === true)
            ctx.note(`copied ${summary.files} file(s), ${summary.bytes} bytes, to ${summary.destination}`);
        }
      } catch (err) {
        if (interrupt.signal.aborted) throw new Error('interrupted: nothing partial was left behind');
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        progress?.stopAll();
      }
    });

  group
    .command('collect-debug-bundle <device_name>')
    .description(
      "gather the device's agent log, journal, state, system information, pod states and configuration (secrets redacted) into a tar.gz",
    )
    .option(
      '-f, --file <path>',
      'where to write it, also -o after the command (default: the name the server suggests, in this folder)',
    )
    .action(async (deviceName: string, opts: { file?: string }, command: Command) => {
      const ctx = ctxFactory(command);
      const response = await debugBundleDownload(connectionOf(command), deviceName);
      const file = resolve(opts.file ?? suggestedFileName(response) ?? `outpost-debug-${basename(deviceName)}.tar.gz`);
      const temp = join(dirname(file), `.${basename(file)}.part`);
      try {
        await pipeline(response, createWriteStream(temp, { mode: 0o600 }));
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err instanceof ApiError
          ? err
          : new ApiError('UNAVAILABLE', `the bundle did not arrive whole: ${String(err)}`);
      }
      const { size } = await stat(file);
      if (ctx.format === 'table') ctx.print(`wrote ${file} (${size} bytes)`);
      else ctx.output({ file, bytes: size });
    });
}

/**
 * The name a download gets inside a local directory: the last segment of the device path as the operator typed
 * it, never a name the device sends.
 */
export function downloadName(remotePath: string): string {
  const name = lastSegment(posix.normalize(remotePath)) || 'root';
  if (name === '.' || name === '..') {
    throw new UsageError(`the device path "${remotePath}" must end in the name of a file or directory`);
  }
  return name;
}

/**
 * Where a downloaded root lands (spec 000 "File transfer path rules" 2): into an existing local directory under
 * `name` (see downloadName); otherwise the local path is the file's name, or the root of the downloaded tree
 * (created). A local path ending in "/" is a directory, created when missing.
 */
export async function placeDownloadRoot(local: string, name: string, kind: TreeRoot['kind']): Promise<string> {
  const existing = await stat(local).catch(() => undefined);
  if (existing?.isDirectory()) return placeEntry(local, name, true);
  if (local.endsWith('/')) {
    await mkdir(local, { recursive: true });
    return placeEntry(local, name, true);
  }
  if (existing !== undefined && kind === 'dir') throw failedPrecondition(`${local} exists and is not a directory`);
  return local;
}

/** Text a device sent, safe to print: control characters (terminal escapes) shown as \xNN. */
export function printable(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\x${code.toString(16).padStart(2, '0')}` : c;
  }
  return out;
}

/** One progress bar per file, on stderr. */
function fileProgress(): ((progress: FileProgress) => void) & { stopAll(): void } {
  const bars = new Map<string, { bar: Progress; shown: number }>();
  const update = (progress: FileProgress): void => {
    let entry = bars.get(progress.path);
    if (entry === undefined) {
      entry = { bar: progressBar(printable(progress.path), progress.size), shown: -1 };
      bars.set(progress.path, entry);
    }
    if (progress.done !== entry.shown) {
      entry.bar.update(progress.done);
      entry.shown = progress.done;
    }
    if (progress.finished) {
      entry.bar.stop();
      bars.delete(progress.path);
    }
  };
  return Object.assign(update, {
    stopAll: () => {
      for (const entry of bars.values()) entry.bar.stop();
      bars.clear();
    },
  });
}
