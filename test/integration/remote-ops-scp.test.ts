/**
 * Spec 000 "File transfer path rules", each in both directions, with the real `outpost devices scp` against a
 * real control plane and a real droplet: data travels in a channel over the device's own connection.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteOpsWorld } from './remote-ops-fixture.js';

const DEVICE = 'projects/files/regions/eu/devices/scp-box';
const world = new RemoteOpsWorld();
let local: string;
let remote: string;

beforeAll(async () => {
  await world.start();
  await world.onlineDevice(DEVICE);
  local = world.folder('local');
  remote = world.folder('remote'); // the device's file system is this machine's: a folder stands for it
  mkdirSync(join(local, 'site', 'css'), { recursive: true });
  writeFileSync(join(local, 'notes.txt'), 'hello device\n');
  chmodSync(join(local, 'notes.txt'), 0o640);
  writeFileSync(join(local, 'site', 'index.html'), '<h1>hi</h1>\n');
  writeFileSync(join(local, 'site', 'css', 'main.css'), 'h1 { color: red }\n');
  chmodSync(join(local, 'site', 'css'), 0o750);
}, 60_000);
afterAll(() => world.stop());

const at = (device: string, path: string): string => `${device}:${path}`;
const scp = async (...args: string[]) => {
  const result = await world.cli(['devices', 'scp', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return result;
};
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe('upload (spec 000 path rule 1)', () => {
  it('a trailing slash puts the file into that directory under its own name, mode kept', async () => {
    await scp(join(local, 'notes.txt'), at(DEVICE, `${remote}/inbox/`));
    expect(readFileSync(join(remote, 'inbox', 'notes.txt'), 'utf8')).toBe('hello device\n');
    expect(modeOf(join(remote, 'inbox', 'notes.txt'))).toBe(0o640);
  });

  it('a path without a trailing slash renames the file', async () => {
    await scp(join(local, 'notes.txt'), at(DEVICE, `${remote}/renamed.txt`));
    expect(readFileSync(join(remote, 'renamed.txt'), 'utf8')).toBe('hello device\n');
  });

  it('with -r, a trailing slash creates the directory itself on the device', async () => {
    await scp('-r', join(local, 'site'), at(DEVICE, `${remote}/www/`));
    expect(tree(join(remote, 'www'))).toEqual(['site', 'site/css', 'site/css/main.css', 'site/index.html']);
    expect(modeOf(join(remote, 'www', 'site', 'css'))).toBe(0o750);
  });

  it('with -r and no trailing slash, only the contents are copied', async () => {
    await scp('-r', join(local, 'site'), at(DEVICE, `${remote}/html`));
    expect(tree(join(remote, 'html'))).toEqual(['css', 'css/main.css', 'index.html']);
  });

  it('a relative device path is refused, and so is a directory without -r', async () => {
    const relative = await world.cli(['devices', 'scp', join(local, 'notes.txt'), at(DEVICE, 'tmp/')]);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/must be absolute/);
    const rest = await world.server.admin
      .request('POST', `/v1/${DEVICE}:upload`, { query: { path: 'tmp/x' } })
      .catch((err: unknown) => err);
    expect(rest).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringMatching(/must be absolute/) });
    const dir = await world.cli(['devices', 'scp', join(local, 'site'), at(DEVICE, `${remote}/nope/`)]);
    expect(dir.code).toBe(1);
    expect(dir.stderr).toMatch(/is a directory \(copy it with -r\)/);
  });
});

describe('download (spec 000 path rule 2)', () => {
  it('into an existing local directory, the file keeps its remote name', async () => {
    const into = world.folder('dl-into');
    await scp(at(DEVICE, `${remote}/renamed.txt`), into);
    expect(readFileSync(join(into, 'renamed.txt'), 'utf8')).toBe('hello device\n');
  });

  it('to a path that is not a directory, the local path is the output file name', async () => {
    const out = join(world.folder('dl-name'), 'copy.txt');
    await scp(at(DEVICE, `${remote}/inbox/notes.txt`), out);
    expect(readFileSync(out, 'utf8')).toBe('hello device\n');
    expect(modeOf(out)).toBe(0o640);
  });

  it('with -r, an existing local directory receives the remote directory beneath it', async () => {
    const into = world.folder('dl-tree-into');
    await scp('-r', at(DEVICE, `${remote}/www/site`), into);
    expect(tree(into)).toEqual(['site', 'site/css', 'site/css/main.css', 'site/index.html']);
  });

  it('with -r, a local path that does not exist is created and becomes the root of the tree', async () => {
    const root = join(world.folder('dl-tree-new'), 'mirror');
    await scp('-r', at(DEVICE, `${remote}/www/site`), root);
    expect(tree(root)).toEqual(['css', 'css/main.css', 'index.html']);
    expect(readFileSync(join(root, 'css', 'main.css'), 'utf8')).toBe('h1 { color: red }\n');
  });

  it('refuses a directory without -r, special files and missing paths, writing nothing', async () => {
    const out = world.folder('dl-refused');
    execFileSync('mkfifo', [join(remote, 'pipe')]);
    const dir = await world.cli(['devices', 'scp', at(DEVICE, `${remote}/www`), out]);
    expect(dir.code).toBe(1);
    expect(dir.stderr).toMatch(/FAILED_PRECONDITION: .*is a directory \(copy it with -r\)/);
    const fifo = await world.cli(['devices', 'scp', at(DEVICE, `${remote}/pipe`), out]);
    expect(fifo.stderr).toMatch(/not a regular file or directory/);
    const missing = await world.cli(['devices', 'scp', at(DEVICE, `${remote}/missing`), out]);
    expect(missing.stderr).toMatch(/NOT_FOUND/);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('the command line', () => {
  it('refuses copies between two devices and copies with no device side', async () => {
    const both = await world.cli(['devices', 'scp', at(DEVICE, '/a'), at(DEVICE, '/b')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/between two devices is impossible/);
    const neither = await world.cli(['devices', 'scp', '/a', '/b']);
    expect(neither.code).toBe(2);
  });

  it('shows a progress line per file with -v', async () => {
    const result = await scp('-v', '-r', join(local, 'site'), at(DEVICE, `${remote}/verbose/`));
    expect(result.stderr).toMatch(/site\/index\.html: .*\(100%\)/);
    expect(result.stderr).toMatch(/site\/css\/main\.css: .*\(100%\)/);
    expect(existsSync(join(remote, 'verbose', 'site', 'index.html'))).toBe(true);
  });
});
