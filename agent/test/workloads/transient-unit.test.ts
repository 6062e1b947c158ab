import { describe, expect, it } from 'vitest';
import { systemdRunArgs, transientUnitName } from '../../src/workloads/transient-unit.js';

describe('services as transient systemd units', () => {
  it('name the unit after project, region, pod and service', () => {
    expect(transientUnitName('projects/p/regions/eu/pods/kiosk', 'web')).toBe('outpost-p.eu.kiosk-web.service');
  });

  it('start the wrapper with systemd-run: user, folder, environment, log file, collected when it ends', () => {
    const launch = {
      file: 'sleep',
      args: ['60'],
      cwd: '/outpost/data/workloads/p.eu.kiosk',
      env: { PATH: '/usr/bin:/bin', GREETING: 'a b=c' },
      uid: 998,
      gid: 997,
      logFile: '/outpost/data/workloads/p.eu.kiosk/web.log',
      pidFile: '/outpost/data/workloads/p.eu.kiosk/.outpost-web.pid',
      exitFile: '/outpost/data/workloads/p.eu.kiosk/.outpost-web.exit',
    };
    const args = systemdRunArgs('outpost-p.eu.kiosk-web.service', launch, ['/bin/sh', '-c', 'wrapper', 'sleep', '60']);
    expect(args).toEqual([
      '--unit=outpost-p.eu.kiosk-web.service',
      '--collect',
      '--quiet',
      '--property=StandardInput=null',
      '--property=StandardOutput=append:/outpost/data/workloads/p.eu.kiosk/web.log',
      '--property=StandardError=append:/outpost/data/workloads/p.eu.kiosk/web.log',
      '--working-directory=/outpost/data/workloads/p.eu.kiosk',
      '--uid=998',
      '--gid=997',
      '--setenv=PATH=/usr/bin:/bin',
      '--setenv=GREETING=a b=c',
      '--',
      '/bin/sh',
      '-c',
      'wrapper',
      'sleep',
      '60',
    ]);
    const { uid: _uid, gid: _gid, ...asAgent } = launch;
    expect(systemdRunArgs('u.service', asAgent, ['x']).some((a) => a.startsWith('--uid'))).toBe(false);
  });
});
