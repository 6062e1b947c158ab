import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/test/helpers/eventually.js';
import { listenForNotifications } from '../../agent/test/systemd/notify-listener.js';
import { REPO } from './helpers/processes.js';

const run = promisify(execFile);
const PACKAGER = join(REPO, 'scripts/package-deb.sh');

let scratch: string;
let arch: string;
const debs: Record<string, string> = {};

/** Builds droplet_<version>_<arch>.deb from the built checkout. */
async function packageDeb(version: string): Promise<string> {
  const { stdout } = await run('bash', [PACKAGER, '--out', join(scratch, 'debs'), '--version', version]);
  return stdout.trim();
}

/**
 * A scratch root dpkg installs into as into a device (`dpkg --root` with the maintainer scripts run outside a
 * chroot, DPKG_ROOT set): an empty package database but for stand-ins of the packages droplet depends on.
 */
async function scratchRoot(): Promise<string> {
  const root = await mkdtemp(join(scratch, 'root-'));
  const dpkgDir = join(root, 'var/lib/dpkg');
  for (const dir of ['info', 'updates', 'triggers']) await mkdir(join(dpkgDir, dir), { recursive: true });
  await writeFile(join(dpkgDir, 'available'), '');
  const nodeMajor = process.versions.node.split('.')[0] ?? '';
  const standIns = [
    ['nodejs', `${nodeMajor}.0.0-1`],
    ['passwd', '1:4.13+dfsg1-1'],
  ];
  await writeFile(
    join(dpkgDir, 'status'),
    standIns
      .map(
        ([name, version]) =>
          `Package: ${name}\nStatus: install ok installed\nVersion: ${version}\nArchitecture: ${arch}\n` +
          `Maintainer: test\nDescription: stand-in\n`,
      )
      .join('\n'),
  );
  for (const [name] of standIns) await writeFile(join(dpkgDir, 'info', `${name}.list`), '');
  await mkdir(join(root, 'etc'));
  await writeFile(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  await writeFile(join(root, 'etc/group'), 'root:x:0:\n');
  await writeFile(join(root, 'etc/shadow'), 'root:*::0:99999:7:::\n', { mode: 0o600 });
  if (process.getuid?.() !== 0) {
    // useradd --root chroots, which needs root: without it the workload user is there beforehand
    await writeFile(
      join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\noutpost-workload:x:999:65534::/nonexistent:/usr/sbin/nologin\n',
    );
  }
  return root;
}

/** `dpkg -i` into the scratch root; no standard input, so a configuration prompt would fail it. */
async function dpkgInstall(root: string, deb: string, ...options: string[]): Promise<string> {
  const { stdout, stderr } = await run('dpkg', [
    `--root=${root}`,
    '--force-script-chrootless',
    '--force-not-root',
    `--log=${join(root, 'dpkg.log')}`,
    ...options,
    '-i',
    deb,
  ]);
  return stdout + stderr;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'outpost-deb-'));
  arch = (await run('dpkg', ['--print-architecture'])).stdout.trim();
  debs['0.1.0'] = await packageDeb('0.1.0');
  debs['0.1.1'] = await packageDeb('0.1.1');
  // each package takes some 10 s of CPU (copying and compressing the agent's runtime packages): at load 26 on
  // 2 cores one took over 3 minutes, and CI runs other suites beside this one
}, 600_000);
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('npm run package:deb (scripts/package-deb.sh)', () => {
  it('names the package droplet_<version>_<arch>.deb and declares its dependencies and conffiles', async () => {
    expect(debs['0.1.0']).toBe(join(scratch, 'debs', `droplet_0.1.0_${arch}.deb`));
    const { stdout: info } = await run('dpkg-deb', ['-I', debs['0.1.0'] ?? '']);
    expect(info).toMatch(/^ Package: droplet$/m);
    expect(info).toMatch(/^ Version: 0\.1\.0$/m);
    expect(info).toMatch(new RegExp(`^ Architecture: ${arch}$`, 'm'));
    const nodeMajor = Number(process.versions.node.split('.')[0]);
    expect(info).toContain(`Depends: nodejs (>= ${nodeMajor}), nodejs (<< ${nodeMajor + 1}), passwd`);
    const { stdout: conffiles } = await run('dpkg-deb', ['-I', debs['0.1.0'] ?? '', 'conffiles']);
    expect(conffiles.trim()).toBe('/etc/default/droplet');
  });

  it('holds the bundled agent with its native addon under /opt/outpost, the unit and the settings file', async () => {
    const { stdout: listing } = await run('dpkg-deb', ['-c', debs['0.1.0'] ?? ''], { maxBuffer: 64 * 1024 * 1024 });
    const entries = new Map(
      listing
        .trim()
        .split('\n')
        .map((line) => {
          const fields = line.split(/\s+/);
          return [fields[5] ?? '', { mode: fields[0] ?? '', owner: fields[1] ?? '' }] as const;
        }),
    );
    for (const path of [
      './opt/outpost/agent/package.json',
      './opt/outpost/agent/dist/main.js',
      './opt/outpost/agent/node_modules/unix-dgram/build/Release/unix_dgram.node',
      './lib/systemd/system/droplet.service',
    ]) {
      expect(entries.get(path)?.owner, path).toBe('root/root');
    }
    // the settings file holds the provisioning token once filled in
    expect(entries.get('./etc/default/droplet')).toEqual({ mode: '-rw-------', owner: 'root/root' });
    const unpacked = join(scratch, 'unpacked');
    await run('dpkg-deb', ['-x', debs['0.1.0'] ?? '', unpacked]);
    const unit = await readFile(join(unpacked, 'lib/systemd/system/droplet.service'), 'utf8');
    expect(unit).toMatch(/^Type=notify$/m);
    expect(unit).toMatch(/^WatchdogSec=30s$/m);
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/outpost/agent/dist/main.js');
  });

  it('installs with dpkg -i, and an upgrade keeps the configuration and the device root as they were', async () => {
    const root = await scratchRoot();
    expect(await dpkgInstall(root, debs['0.1.0'] ?? '')).toContain('Setting up droplet (0.1.0)');
    for (const dir of ['outpost', 'outpost/config', 'outpost/data']) {
      expect((await stat(join(root, dir))).isDirectory(), dir).toBe(true);
    }
    expect(await readFile(join(root, 'etc/passwd'), 'utf8')).toMatch(/^outpost-workload:/m);
    expect(await readlink(join(root, 'etc/systemd/system/multi-user.target.wants/droplet.service'))).toBe(
      '/lib/systemd/system/droplet.service',
    );

    // the operator's settings and what the agent wrote in the device root
    const settings = 'DROPLET_DEVICE_ROOT=/outpost\nDROPLET_SERVER=https://outpost.example.com\n';
    await writeFile(join(root, 'etc/default/droplet'), settings);
    const deviceFiles = {
      'outpost/config/credential': 'device-credential\n',
      'outpost/config/droplet.json': '{"server":"https://outpost.example.com"}\n',
      'outpost/data/state.json': '{"osVersion":"1.0.0"}\n',
    };
    for (const [path, content] of Object.entries(deviceFiles)) await writeFile(join(root, path), content);

    expect(await dpkgInstall(root, debs['0.1.1'] ?? '')).toContain('Setting up droplet (0.1.1)');
    expect(await readFile(join(root, 'etc/default/droplet'), 'utf8')).toBe(settings);
    for (const [path, content] of Object.entries(deviceFiles)) {
      expect(await readFile(join(root, path), 'utf8'), path).toBe(content);
    }
    const { stdout: version } = await run(process.execPath, [
      join(root, 'opt/outpost/agent/dist/main.js'),
      '--version',
    ]);
    expect(version.trim()).toBe('0.1.1');
  }, 180_000);

  it('creates the device root named in the settings a new install finds', async () => {
    const root = await scratchRoot();
    await mkdir(join(root, 'etc/default'), { recursive: true });
    // settings written before the package (an image build, configuration management): a conffile dpkg keeps
    await writeFile(join(root, 'etc/default/droplet'), 'DROPLET_DEVICE_ROOT=/data/outpost\n');
    expect(await dpkgInstall(root, debs['0.1.0'] ?? '', '--force-confold')).toContain('Setting up droplet (0.1.0)');
    expect(await readFile(join(root, 'etc/default/droplet'), 'utf8')).toBe('DROPLET_DEVICE_ROOT=/data/outpost\n');
    expect((await stat(join(root, 'data/outpost/config'))).isDirectory()).toBe(true);
  }, 180_000);

  it('runs the installed agent, which tells systemd it is ready through the packaged unix-dgram addon', async () => {
    const root = await scratchRoot();
    await dpkgInstall(root, debs['0.1.0'] ?? '');
    const listener = listenForNotifications(await mkdtemp(join(scratch, 'notify-')));
    const child = spawn(
      process.execPath,
      [join(root, 'opt/outpost/agent/dist/main.js'), '--device-root', join(root, 'outpost'), '--log-level', 'silent'],
      // unprovisioned and with no server: it says READY=1, then exits 78 (EX_CONFIG)
      { env: { PATH: process.env.PATH ?? '', NOTIFY_SOCKET: listener.path }, stdio: 'ignore' },
    );
    try {
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(78);
      await eventually(() => expect(listener.received.length).toBeGreaterThan(0), 20_000);
      expect(listener.received[0]?.fields).toMatchObject({ READY: '1', STATUS: 'droplet 0.1.0 starting' });
    } finally {
      child.kill('SIGKILL');
      listener.close();
    }
  }, 180_000);
});
