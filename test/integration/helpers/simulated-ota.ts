import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startTestServer, TEST_ADMIN_KEY } from '../../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../../control-plane/test/helpers/test-server.js';
import { DeviceTimeline } from './device-timeline.js';
import { DROPLET, runCli, startProcess } from './processes.js';
import type { RunningProcess } from './processes.js';

export interface PublishOptions {
  minimumPreviousVersion?: string;
  /** bytes at the start of the image (the simulated boot reads them: OUTPOST-TEST-PANIC) */
  marker?: string;
  megabytes?: number;
}

/**
 * `outpost devices provision` (with `env`: its server and key) of a device of type simulated at factory version
 * 1.0.0 into `root`, on the `backend` boot backend, trusting the signing key `signingPub`.
 */
export async function provisionSimulatedDevice(
  env: Record<string, string>,
  name: string,
  root: string,
  signingPub: string,
  backend = 'file',
): Promise<void> {
  const result = await runCli(
    [
      'devices',
      'provision',
      name,
      '--device-root',
      root,
      '--boot-backend',
      backend,
      '--factory-version',
      '1.0.0',
      '--device-type',
      'simulated',
    ],
    env,
  );
  expect(result.code, result.stderr).toBe(0);
  mkdirSync(join(root, 'config', 'trust'), { recursive: true });
  copyFileSync(signingPub, join(root, 'config', 'trust', 'signing.pub'));
}

export interface SimulatedDevice {
  name: string;
  root: string;
  timeline: DeviceTimeline;
  start(extra?: string[], env?: Record<string, string>): RunningProcess;
}

/**
 * A real control plane with signed OS versions of device type `simulated`, and droplet child processes on the
 * file boot backend that trust the signing key: what the OS-upgrade integration tests run against.
 */
export class SimulatedOtaWorld {
  readonly agents: RunningProcess[] = [];
  private readonly timelines: DeviceTimeline[] = [];
  /** how many devices were made for each id */
  private readonly ids = new Map<string, number>();

  private constructor(
    readonly server: TestServer,
    readonly work: string,
    readonly parent: string,
  ) {}

  static async start(project: string): Promise<SimulatedOtaWorld> {
    const server = await startTestServer({}, { heartbeatSeconds: 1 });
    const world = new SimulatedOtaWorld(
      server,
      mkdtempSync(join(tmpdir(), `outpost-${project}-`)),
      `projects/${project}/regions/eu`,
    );
    const keygen = await runCli(['os', 'keygen', join(world.work, 'signing')], world.cliEnv());
    expect(keygen.code, keygen.stderr).toBe(0);
    return world;
  }

  cliEnv(): Record<string, string> {
    return { OUTPOST_SERVER: this.server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY };
  }

  async publish(version: string, { minimumPreviousVersion, marker = '', megabytes = 1 }: PublishOptions = {}) {
    const image = join(this.work, `image-${version}.img`);
    writeFileSync(image, Buffer.concat([Buffer.from(marker), randomBytes(megabytes * 1024 * 1024)]));
    const result = await runCli(
      [
        'os',
        'publish',
        '--device-type',
        'simulated',
        '--version',
        version,
        '--image',
        image,
        '--key',
        join(this.work, 'signing.key'),
        ...(minimumPreviousVersion === undefined ? [] : ['--minimum-previous-version', minimumPreviousVersion]),
      ],
      this.cliEnv(),
    );
    expect(result.code, result.stderr).toBe(0);
  }

  /** `outpost devices provision` at factory version 1.0.0 of type simulated, with the signing key trusted. */
  async device(id: string, backend = 'file'): Promise<SimulatedDevice> {
    // a retried test (CI) asks for its id again: it gets a device of its own, not the one its first attempt upgraded
    const uses = (this.ids.get(id) ?? 0) + 1;
    this.ids.set(id, uses);
    const unique = uses === 1 ? id : `${id}-${uses}`;
    const name = `${this.parent}/devices/${unique}`;
    const root = join(this.work, unique);
    await provisionSimulatedDevice(this.cliEnv(), name, root, join(this.work, 'signing.pub'), backend);
    const timeline = new DeviceTimeline(this.server.admin, name);
    this.timelines.push(timeline);
    return {
      name,
      root,
      timeline,
      start: (extra = [], env = {}) => {
        const agent = startProcess(
          DROPLET,
          ['--device-root', root, '--metrics-interval', '30', '--log-level', 'warn', ...extra],
          env,
        );
        this.agents.push(agent);
        return agent;
      },
    };
  }

  /** after each test: its timelines closed, its agents killed */
  async stopDevices(): Promise<void> {
    this.timelines.splice(0).forEach((t) => t.close());
    await Promise.all(this.agents.splice(0).map((a) => a.stop('SIGKILL')));
  }

  async dispose(): Promise<void> {
    await this.server.dispose();
    await rm(this.work, { recursive: true, force: true });
  }
}
