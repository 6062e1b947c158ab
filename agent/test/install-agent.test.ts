import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const installer = fileURLToPath(new URL('../../scripts/install-agent.sh', import.meta.url));

/** Runs the installer; resolves with its exit code and output whatever the code. */
async function installAgent(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('bash', [installer, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? -1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

describe('scripts/install-agent.sh', () => {
  it('is valid bash', async () => {
    await expect(run('bash', ['-n', installer])).resolves.toBeDefined();
  });

  it('prints its usage', async () => {
    const { code, stdout } = await installAgent('--help');
    expect(code).toBe(0);
    expect(stdout).toContain('--provisioning-token <token>');
    expect(stdout).toContain('--dry-run');
  });

  it('plans an installation in a dry run: settings file, unit and the runtime packages', async () => {
    const { code, stdout } = await installAgent(
      '--dry-run',
      '--device-root',
      '/data/outpost',
      '--server=https://outpost.example.com',
      '--provisioning-token',
      'secret-token',
      '--project',
      'p1',
      '--region',
      'eu',
      '--device-id',
      'edge-1',
      '--boot-backend',
      'grubenv',
      '--prefix',
      '/opt/op/agent',
      '--node',
      '/usr/local/bin/node',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('dry run; nothing is changed');
    expect(stdout).toContain('service:     systemctl daemon-reload && systemctl enable --now droplet');
    const settings = stdout.split('--- /etc/default/droplet\n')[1]?.split('\n---')[0] ?? '';
    expect(settings.split('\n').filter((line) => line.startsWith('DROPLET_'))).toEqual([
      'DROPLET_DEVICE_ROOT=/data/outpost',
      'DROPLET_SERVER=https://outpost.example.com',
      'DROPLET_PROVISIONING_TOKEN=<hidden>',
      'DROPLET_PROJECT=p1',
      'DROPLET_REGION=eu',
      'DROPLET_DEVICE_ID=edge-1',
      'DROPLET_BOOT_BACKEND=grubenv',
    ]);
    expect(stdout).not.toContain('secret-token');
    expect(stdout).toContain(
      'ExecStart=/usr/local/bin/node /opt/op/agent/dist/main.js --device-root ${DROPLET_DEVICE_ROOT}',
    );
    expect(stdout).toContain('Restart=on-failure');
    const packages = stdout.split('--- packages\n')[1]?.split('\n---')[0]?.split('\n') ?? [];
    expect(packages).toEqual(expect.arrayContaining(['@outpost/shared', 'zod', 'ws', 'pino', 'commander']));
    expect(packages).not.toContain('vitest');
    expect(packages).not.toContain('typescript');
    // the inventory collector's library (bundled into dist/inventory-collector.js; tsc's output imports it)
    expect(packages).toContain('systeminformation');
    // only a test uses gRPC, and the agent compares no versions: neither ships to devices
    for (const unused of ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs', 'semver']) {
      expect(packages).not.toContain(unused);
    }
  });

  it('plans the workload user: outpost-workload by default, --workload-user names another', async () => {
    const plain = await installAgent('--dry-run');
    expect(plain.stdout).toContain(
      'workload:    user outpost-workload (a system user without login, created if missing)',
    );
    const named = await installAgent('--dry-run', '--workload-user', 'app-runner');
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('workload:    user app-runner');
    expect(named.stdout).toContain('DROPLET_WORKLOAD_USER=app-runner');
  });

  it('with --ca-file and --insecure plans DROPLET_CA_FILE and an agent started with --insecure', async () => {
    const { code, stdout, stderr } = await installAgent(
      '--dry-run',
      '--server',
      'http://10.0.0.5:8080',
      '--ca-file=/etc/outpost/ca.pem',
      '--insecure',
    );
    expect(code).toBe(0);
    const settings = stdout.split('--- /etc/default/droplet\n')[1]?.split('\n---')[0] ?? '';
    expect(settings.split('\n').filter((line) => line.startsWith('DROPLET_'))).toEqual([
      'DROPLET_SERVER=http://10.0.0.5:8080',
      'DROPLET_CA_FILE=/etc/outpost/ca.pem',
    ]);
    expect(stdout).toContain(
      'ExecStart=/usr/bin/node /opt/outpost/agent/dist/main.js --device-root ${DROPLET_DEVICE_ROOT} --insecure\n',
    );
    // only the agent itself: restoring the network configuration makes no connection
    expect(stdout).toContain('restore-config --device-root ${DROPLET_DEVICE_ROOT}\n');
    expect(stderr).toContain('/etc/outpost/ca.pem does not exist');

    const secure = await installAgent('--dry-run', '--ca-file', '/etc/outpost/ca.pem');
    expect(secure.stdout).not.toContain('--insecure');
  });

  it('with --dest-root plans an image install that is enabled, not started', async () => {
    const { code, stdout } = await installAgent('--dry-run', '--dest-root', '/mnt/rootfs');
    expect(code).toBe(0);
    expect(stdout).toContain('agent:       /mnt/rootfs/opt/outpost/agent');
    expect(stdout).toContain('service:     enable droplet in /mnt/rootfs (not started)');
  });

  it('with --deb plans the settings file and installing the package, and checks it is the droplet package', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'install-agent-deb-'));
    try {
      const root = join(dir, 'root');
      await mkdir(join(root, 'DEBIAN'), { recursive: true });
      const control = (name: string): string =>
        `Package: ${name}\nVersion: 1.2.3\nArchitecture: all\nMaintainer: test <t@example.com>\nDescription: test\n`;
      await writeFile(join(root, 'DEBIAN/control'), control('droplet'));
      await run('dpkg-deb', ['--root-owner-group', '--build', root, join(dir, 'unitless.deb')]);
      await mkdir(join(root, 'lib/systemd/system'), { recursive: true });
      await writeFile(
        join(root, 'lib/systemd/system/droplet.service'),
        '[Service]\nExecStartPre=-/usr/bin/node /opt/a/main.js restore-config\nExecStart=/usr/bin/node /opt/a/main.js --x\n',
      );
      await run('dpkg-deb', ['--root-owner-group', '--build', root, join(dir, 'droplet.deb')]);
      await writeFile(join(root, 'DEBIAN/control'), control('other'));
      await run('dpkg-deb', ['--root-owner-group', '--build', root, join(dir, 'other.deb')]);

      const planned = await installAgent(
        '--dry-run',
        '--deb',
        join(dir, 'droplet.deb'),
        '--server',
        'https://op.example',
      );
      expect(planned.code).toBe(0);
      expect(planned.stdout).toContain(`package:     ${join(dir, 'droplet.deb')} (1.2.3)`);
      expect(planned.stdout).toMatch(
        /^install: {5}(apt-get install -y -o Dpkg::Options::=--force-confold|dpkg --force-confold -i) /m,
      );
      expect(planned.stdout).toContain('--- /etc/default/droplet\n');
      expect(planned.stdout).toContain('DROPLET_SERVER=https://op.example');

      expect(planned.stdout).not.toContain('insecure.conf');

      const insecure = await installAgent(
        '--dry-run',
        '--deb',
        join(dir, 'droplet.deb'),
        '--server',
        'http://op.example',
        '--ca-file',
        '/etc/op-ca.pem',
        '--insecure',
      );
      expect(insecure.code).toBe(0);
      expect(insecure.stdout).toContain('DROPLET_CA_FILE=/etc/op-ca.pem\n');
      expect(insecure.stdout.split('--- /etc/systemd/system/droplet.service.d/insecure.conf\n')[1]).toBe(
        [
          '# written by install-agent.sh --insecure: plain http:// to a server that is not on loopback',
          '[Service]',
          'ExecStart=',
          'ExecStart=/usr/bin/node /opt/a/main.js --x --insecure',
          '',
        ].join('\n'),
      );
      const unitless = await installAgent('--dry-run', '--deb', join(dir, 'unitless.deb'), '--insecure');
      expect(unitless.code).toBe(1);
      expect(unitless.stderr).toContain('has no lib/systemd/system/droplet.service with an ExecStart');

      const other = await installAgent('--dry-run', '--deb', join(dir, 'other.deb'));
      expect(other.code).toBe(1);
      expect(other.stderr).toContain('is the package other, not droplet');
      const missing = await installAgent('--dry-run', '--deb', join(dir, 'none.deb'));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('none.deb not found');
      const notStarted = await installAgent('--dry-run', '--deb', join(dir, 'droplet.deb'), '--no-start');
      expect(notStarted.code).toBe(2);
      expect(notStarted.stderr).toContain('--deb installs the package as it is');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['--bogus'], /unknown option --bogus/],
    [['--server'], /--server needs a value/],
    [['--boot-backend', 'lilo'], /--boot-backend must be grubenv, uboot, file or none/],
    [['--device-id', 'Edge_1'], /not a device id/],
    [['--server', 'ftp://x'], /--server must be an http\(s\) URL/],
    [['--server', 'http://a b'], /must not contain spaces/],
    [['--device-root', 'relative'], /--device-root must be an absolute path/],
    [['--workload-user', 'Root-1'], /--workload-user 'Root-1' is not a user name/],
    [['--ca-file', 'ca.pem'], /--ca-file must be an absolute path/],
    [['--ca-file', '/etc/my ca.pem'], /--ca-file must not contain spaces/],
    [['--insecure', '--server', 'https://op.example'], /--insecure is for a plain http:\/\/ server/],
    [
      ['--provisioning-token', 't', '--server', 'http://x'],
      /--provisioning-token also needs --project --region --device-id/,
    ],
  ])('refuses %j with exit code 2', async (args, message) => {
    const { code, stderr } = await installAgent('--dry-run', ...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
