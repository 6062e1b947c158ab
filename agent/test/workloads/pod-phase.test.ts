import { describe, expect, it } from 'vitest';
import type { ServiceStatus } from '@outpost/shared';
import { containerName, containerRunArgs } from '../../src/workloads/container-runtime.js';
import { REASONS, podPhaseOf, restartDelayMs, shouldRestart } from '../../src/workloads/pod-phase.js';

const s = (state: ServiceStatus['state'], reason?: string): ServiceStatus => ({
  name: 'x',
  state,
  ...(reason === undefined ? {} : { reason }),
});

describe('pod phase', () => {
  it('follows the services', () => {
    expect(podPhaseOf([])).toBe('PENDING');
    expect(podPhaseOf([s('WAITING', REASONS.pending), s('RUNNING')])).toBe('RUNNING');
    expect(podPhaseOf([s('RESTARTING'), s('TERMINATED', REASONS.error)])).toBe('RUNNING');
    expect(podPhaseOf([s('WAITING', REASONS.pending)])).toBe('PENDING');
    expect(podPhaseOf([s('RUNNING'), s('WAITING', REASONS.runtimeUnavailable)])).toBe('POD_CREATE_FAILED');
    expect(podPhaseOf([s('TERMINATED', REASONS.completed), s('TERMINATED', REASONS.error)])).toBe('FAILED');
    expect(podPhaseOf([s('TERMINATED', REASONS.startError)])).toBe('FAILED');
    expect(podPhaseOf([s('TERMINATED', REASONS.stopped), s('TERMINATED', REASONS.stopped)])).toBe('STOPPED');
    expect(podPhaseOf([s('TERMINATED', REASONS.stopped), s('TERMINATED', REASONS.completed)])).toBe('SUCCEEDED');
    expect(podPhaseOf([s('UNKNOWN')])).toBe('UNKNOWN');
  });

  it('restarts by policy with capped exponential backoff', () => {
    expect(shouldRestart(undefined, true)).toBe(true);
    expect(shouldRestart('ALWAYS', true)).toBe(true);
    expect(shouldRestart('ON_FAILURE', true)).toBe(false);
    expect(shouldRestart('ON_FAILURE', false)).toBe(true);
    expect(shouldRestart('NEVER', false)).toBe(false);
    expect([0, 1, 2, 3, 10].map((n) => restartDelayMs(n, 100, 1000))).toEqual([100, 200, 400, 800, 1000]);
  });
});

describe('container runtime arguments', () => {
  it('run the image in the foreground under a stable name, with env, entrypoint and args', () => {
    const name = containerName('projects/p/regions/r/pods/web', 'api');
    expect(name).toBe('outpost-web-api');
    expect(
      containerRunArgs(
        {
          pod: 'projects/p/regions/r/pods/web',
          service: { name: 'api', image: 'nginx:1', command: ['/bin/sh', '-c'], args: ['echo hi'], workingDir: '/srv' },
          workDir: '/outpost/data/workloads/p.r.web',
          logFile: '/dev/null',
          recordFile: '/outpost/data/workloads/.services/p.r.web/api.json',
          env: [{ name: 'A', value: 'b c' }],
        },
        name,
      ),
    ).toEqual([
      'run',
      '--rm',
      '--name',
      'outpost-web-api',
      '--label',
      'outpost.pod=projects/p/regions/r/pods/web',
      '--label',
      'outpost.service=api',
      '--env',
      'A=b c',
      '--workdir',
      '/srv',
      '--entrypoint',
      '/bin/sh',
      'nginx:1',
      '-c',
      'echo hi',
    ]);
  });
});
