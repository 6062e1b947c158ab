import { execFileSync } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Condition, ProbeSpec } from '@outpost/shared';
import { parsePasswdLine } from '../../src/config/user-account.js';
import { probesFor } from '../../src/health/probes/run-probe.js';
import { containerRunArgs } from '../../src/workloads/container-runtime.js';
import { podDirName } from '../../src/workloads/pod-runner.js';
import { processRuntime } from '../../src/workloads/process-runtime.js';
import { WorkloadManager } from '../../src/workloads/workload-manager.js';
import { resolveWorkloadUser, workloadUser } from '../../src/workloads/workload-user.js';
import type { WorkloadUser } from '../../src/workloads/workload-user.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { TestGateway } from '../helpers/test-gateway.js';
import { startInProcessDevice } from '../os/helpers/in-process-device.js';
import type { InProcessDevice } from '../os/helpers/in-process-device.js';

const tempDir = useTempDirs();
const managers: WorkloadManager[] = [];
const devices: InProcessDevice[] = [];
const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
  await Promise.all(devices.splice(0).map((d) => d.stop()));
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

const agentUid = process.getuid?.() ?? -1;
const isRoot = agentUid === 0;
const MISSING_USER = 'outpost-no-such-user';

/** The uid a COMMAND check runs as: `id -u` printed by a command that fails, so the probe quotes its output. */
async function checkUid(user: WorkloadUser, runAsRoot = false): Promise<string> {
  const spec: ProbeSpec = { type: 'COMMAND', command: { argv: ['sh', '-c', 'id -u; exit 3'], runAsRoot } };
  const outcome = await probesFor(user)(spec, new AbortController().signal, 20_000);
  const uid = /exited 3: (\d+)$/.exec(outcome.message)?.[1];
  if (uid === undefined) throw new Error(`unexpected probe result: ${outcome.message}`);
  return uid;
}

/** The uid and HOME a pod's process service runs with (it writes them into its pod folder). */
async function serviceIdentity(user: WorkloadUser, runAsRoot = false): Promise<{ uid: string; home: string }> {
  const dataDir = await tempDir();
  await chmod(dataDir, 0o755); // mkdtemp makes it 0700: another user could not reach its pod folder
  const workloads = new WorkloadManager({
    dataDir,
    runtimes: { process: processRuntime(), container: async () => undefined },
    logger: capturedLogger().logger,
    workloadUser: user,
  });
  managers.push(workloads);
  const name = 'projects/p/regions/r/pods/who';
  await workloads.setDesired([
    {
      name,
      generation: 1,
      spec: {
        services: [{ name: 'main', command: ['sh', '-c', 'echo "$(id -u) $HOME" > who.txt; sleep 30'] }],
        ...(runAsRoot ? { runAsRoot } : {}),
      },
    },
  ]);
  const file = join(dataDir, 'workloads', podDirName(name), 'who.txt');
  const written = await eventually(async () => {
    const text = (await readFile(file, 'utf8')).trim();
    expect(text).not.toBe('');
    return text;
  }, 10_000);
  const [uid = '', home = ''] = written.split(' ');
  return { uid, home };
}

describe('whom COMMAND checks and pod services run as (--workload-user)', () => {
  it('reads passwd lines', () => {
    expect(parsePasswdLine('outpost-workload:x:998:997::/nonexistent:/usr/sbin/nologin')).toEqual({
      name: 'outpost-workload',
      uid: 998,
      gid: 997,
      home: '/nonexistent',
    });
    expect(parsePasswdLine('broken:x:uid:1::/:/bin/sh')).toBeUndefined();
    expect(parsePasswdLine('')).toBeUndefined();
  });

  it('decides from the account and the agent uid: only root switches, and runAsRoot stays with the agent', () => {
    const account = { name: 'w', uid: 990, gid: 991, home: '/home/w' };
    const asRoot = workloadUser('w', account, 0);
    expect(asRoot.condition).toMatchObject({ type: 'WorkloadUser', status: 'True', reason: 'Unprivileged' });
    expect(asRoot.runAs(false)).toEqual(account);
    expect(asRoot.runAs(true)).toBeUndefined();
    expect(workloadUser('w', undefined, 0).condition).toMatchObject({ status: 'False', reason: 'UserMissing' });
    const notRoot = workloadUser('w', account, 1000);
    expect(notRoot.condition).toMatchObject({ status: 'False', reason: 'CannotSwitch' });
    expect(notRoot.runAs(false)).toBeUndefined();
    expect(workloadUser('w', account, 990).runAs(false)).toBeUndefined(); // already that user
    expect(workloadUser('root', { ...account, uid: 0 }, 0).condition.reason).toBe('PrivilegedUser');
  });

  it('runs a container service as the workload user too', () => {
    const launch = {
      pod: 'projects/p/regions/r/pods/c',
      service: { name: 'web', image: 'nginx' },
      workDir: '/outpost/data/workloads/p.r.c',
      logFile: '/outpost/data/workloads/p.r.c/web.log',
      recordFile: '/outpost/data/workloads/.services/p.r.c/web.json',
      env: [],
    };
    const runAs = { name: 'w', uid: 990, gid: 991, home: '/home/w' };
    expect(containerRunArgs({ ...launch, runAs }, 'outpost-c-web').join(' ')).toContain('--user 990:991');
    expect(containerRunArgs(launch, 'outpost-c-web')).not.toContain('--user');
  });

  it('runs them as the agent itself where the user does not exist, and says so in the device status', async () => {
    const user = await resolveWorkloadUser(MISSING_USER);
    expect(user.condition).toEqual({
      type: 'WorkloadUser',
      status: 'False',
      reason: 'UserMissing',
      message: `the workload user "${MISSING_USER}" does not exist: health checks and pod services run as the agent itself (uid ${agentUid})`,
    });
    expect(await checkUid(user)).toBe(String(agentUid));
    expect((await serviceIdentity(user)).uid).toBe(String(agentUid));

    const gateway = await TestGateway.start();
    gateways.push(gateway);
    const { logger, messages } = capturedLogger();
    devices.push(await startInProcessDevice(await tempDir(), gateway.url, logger, { os: false, workloadUser: user }));
    const connection = await gateway.connection(0);
    await connection.waitFor('hello');
    connection.welcome();
    const status = await connection.waitFor('status', (m) =>
      ((m['conditions'] as Condition[] | undefined) ?? []).some((c) => c.type === 'WorkloadUser'),
    );
    expect((status['conditions'] as Condition[]).find((c) => c.type === 'WorkloadUser')).toMatchObject(user.condition);
    expect(messages()).toContain(user.condition.message);
  });

  describe.skipIf(!isRoot)('as root: a throwaway user', () => {
    const name = `opw${process.pid}`;
    let user: WorkloadUser;
    let uid: string;
    beforeAll(async () => {
      execFileSync('useradd', [
        '--system',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        name,
      ]);
      uid = execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim();
      user = await resolveWorkloadUser(name);
    });
    afterAll(() => {
      execFileSync('userdel', [name]);
    });

    it('runs COMMAND checks as that user, and as root only when the check asks for it', async () => {
      expect(user.condition).toMatchObject({ type: 'WorkloadUser', status: 'True', reason: 'Unprivileged' });
      expect(uid).not.toBe('0');
      expect(await checkUid(user)).toBe(uid);
      expect(await checkUid(user, true)).toBe('0');
    });

    it('runs pod services as that user with its own HOME, and as root only when the pod asks for it', async () => {
      expect(await serviceIdentity(user)).toEqual({ uid, home: '/nonexistent' });
      expect((await serviceIdentity(user, true)).uid).toBe('0');
    });
  });
});
