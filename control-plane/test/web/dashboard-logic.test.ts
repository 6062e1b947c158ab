/**
 * The pure parts of the dashboard's API module: screens as hashes, byte requests, the health check form, the OS
 * slots and configuration state of the device page, quantities in their units.
 */
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  configurationRows,
  osVersionLine,
  slotRows,
  summarizeDevice,
} from '../../src/web/assets/api/device-view.js';
import { formatQuantity } from '../../src/web/assets/api/quantities.js';
import { fieldsFromCheck, healthCheckFromForm } from '../../src/web/assets/api/health-check-form.js';
import { parseParent, resourcePath } from '../../src/web/assets/api/paths.js';
import { DEFAULT_PARENT, parseRoute, routeHash } from '../../src/web/assets/api/routes.js';
import {
  downloadPathProblem,
  downloadRequest,
  formatBytes,
  uploadDirectoryProblem,
  uploadRequest,
} from '../../src/web/assets/api/transfer-requests.js';

const device = 'projects/p/regions/eu/devices/gw-1';

describe('screens and names', () => {
  it('round-trips routes through the location hash, defaulting to every device', () => {
    for (const route of [
      { screen: 'devices', parent: 'projects/p/regions/-', filter: '', orderBy: '' },
      { screen: 'devices', parent: 'projects/p/regions/-', filter: 'labels.a = "b&c"', orderBy: 'name desc' },
      { screen: 'device', name: device },
    ] as const) {
      expect(parseRoute(routeHash(route))).toEqual(route);
    }
    const everyDevice = { screen: 'devices', parent: DEFAULT_PARENT, filter: '', orderBy: '' };
    expect(parseRoute('')).toEqual(everyDevice);
    expect(parseRoute('#device')).toEqual(everyDevice);
  });

  it('checks a typed parent and escapes ids in paths, keeping custom methods', () => {
    expect(parseParent(' /projects/p/regions/-/ ')).toEqual({ parent: 'projects/p/regions/-' });
    expect(parseParent('projects/p')).toEqual({
      error: '"projects/p" is not projects/{project}/regions/{region or -}',
    });
    expect(resourcePath(device, 'reboot')).toBe(`/v1/${device}:reboot`);
    expect(resourcePath('osVersions/sim 1')).toBe('/v1/osVersions/sim%201');
  });
});

describe('byte requests', () => {
  it('upload: the raw bytes of one file into the directory under its own name, with the bearer key', () => {
    expect(uploadRequest('k', device, '/outpost/data/', 'my app.conf')).toEqual({
      method: 'POST',
      url: `/v1/${device}:upload?path=%2Foutpost%2Fdata%2F&name=my+app.conf`,
      headers: { authorization: 'Bearer k', 'content-type': 'application/octet-stream' },
    });
    expect(uploadDirectoryProblem('data/')).toMatch(/must be absolute/);
    expect(() => uploadRequest('k', device, '/x/', '..')).toThrow('".." is not a plain file name');
  });

  it('download: one file by its full path, saved under its remote name', () => {
    expect(downloadRequest('k', device, '/var/log/syslog')).toMatchObject({
      method: 'GET',
      url: `/v1/${device}:download?path=%2Fvar%2Flog%2Fsyslog`,
      fileName: 'syslog',
    });
    expect(downloadPathProblem('/var/log/')).toMatch(/is a directory/);
    expect(downloadPathProblem('')).toMatch(/is empty/);
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});

describe('the health check form and the overview', () => {
  it('refuses what the form lacks before calling the server', () => {
    const base = { id: 'web', appliesTo: 'device' } as const;
    expect(healthCheckFromForm(device, { ...base, type: 'HTTP' })).toEqual({ error: 'a HTTP check needs a URL' });
    expect(healthCheckFromForm(device, { ...base, type: 'TCP', host: 'h', port: '0' })).toEqual({
      error: 'a TCP check needs a port from 1 to 65535',
    });
    expect(healthCheckFromForm(device, { ...base, id: 'Bad_Id', type: 'ICMP', host: 'h' })).toMatchObject({
      error: expect.stringContaining('must match'),
    });
    expect(
      healthCheckFromForm(device, {
        ...base,
        type: 'DEVICE_FILE',
        path: '/dev/ttyUSB0',
        appliesTo: 'labels',
        labels: 'x',
      }),
    ).toEqual({ error: 'label "x" must be key=value' });
    expect(healthCheckFromForm(device, { ...base, type: 'ICMP', host: '10.0.0.1', appliesTo: 'all' })).toEqual({
      check: {
        name: 'projects/p/regions/eu/healthChecks/web',
        spec: { type: 'ICMP', icmp: { host: '10.0.0.1' }, selector: { matchLabels: {} } },
      },
    });
  });

  it('builds every field of each type, and reads a stored check back into the same fields (to edit it)', () => {
    const specs = [
      {
        type: 'HTTP',
        http: {
          url: 'http://127.0.0.1:8000/health',
          method: 'POST',
          expectedStatus: { min: 200, max: 204 },
          bodyContains: 'ok',
        },
        intervalSeconds: 15,
        timeoutSeconds: 2,
        successThreshold: 2,
        failureThreshold: 4,
        selector: { matchLabels: { role: 'gateway' } },
      },
      { type: 'TCP', tcp: { host: 'db', port: 5432 } },
      { type: 'GRPC', grpc: { host: '127.0.0.1', port: 50051, service: 'shop.Cart', tls: true } },
      { type: 'ICMP', icmp: { host: '10.0.0.1' }, selector: { matchLabels: {} } },
      { type: 'COMMAND', command: { argv: ['test', '-w', '/outpost/data'], runAsRoot: true } },
      { type: 'DEVICE_FILE', deviceFile: { path: '/dev/ttyUSB0', type: 'CHARACTER_DEVICE' } },
    ];
    for (const spec of specs) {
      const check = { name: 'projects/p/regions/eu/healthChecks/probe', spec };
      expect(healthCheckFromForm(device, fieldsFromCheck(check)), spec.type).toEqual({ check });
    }
    const base = { id: 'web', appliesTo: 'device', type: 'HTTP', url: 'http://x/' } as const;
    expect(healthCheckFromForm(device, { ...base, expectedStatusMin: '300', expectedStatusMax: '200' })).toEqual({
      error: 'the expected status is a range of HTTP statuses from 100 to 599, lowest first',
    });
    expect(healthCheckFromForm(device, { ...base, failureThreshold: '0' })).toEqual({
      error: 'failureThreshold must be a whole number from 1 to 100',
    });
    expect(healthCheckFromForm(device, { ...base, method: 'GET' })).toEqual({
      check: { name: 'projects/p/regions/eu/healthChecks/web', spec: { type: 'HTTP', http: { url: 'http://x/' } } },
    });
  });

  it('orders versions as semver and shows an upgrade under way', () => {
    expect(['1.10.0', '1.2.0', '1.2.0-rc.1', '0.9.9'].sort(compareVersions)).toEqual([
      '0.9.9',
      '1.2.0-rc.1',
      '1.2.0',
      '1.10.0',
    ]);
    const summary = summarizeDevice({
      name: device,
      spec: { osVersion: '1.1.0' },
      status: { connectionStatus: 'CONNECTED', deviceInfo: { osVersion: '1.0.0', deviceType: 'sim' } },
    });
    expect(summary).toMatchObject({ connection: 'Online', deviceType: 'deviceTypes/sim' });
    expect(osVersionLine(summary)).toBe('1.1.0 (running 1.0.0)');
  });
});

describe('the device page panels', () => {
  it('tells each OS slot: running or retained, committed, trial on the next boot, failed', () => {
    const osUpdate = {
      bootBackend: 'grub',
      runningSlot: 'B',
      activeSlot: 'A',
      trySlot: 'B',
      lastFailed: 'A',
      slots: { B: { version: '1.1.0' }, A: { version: '1.0.0' } },
    };
    expect(slotRows({ name: device, status: { osUpdate } })).toEqual([
      { slot: 'A', version: '1.0.0', role: 'retained, committed, failed' },
      { slot: 'B', version: '1.1.0', role: 'running, trial on the next boot' },
    ]);
    expect(slotRows({ name: device, status: { osUpdate: { bootBackend: 'file', slots: { A: {} } } } })).toEqual([
      { slot: 'A', version: '', role: '' },
    ]);
    expect(slotRows({ name: device })).toEqual([]);
  });

  it('tells each configuration part applied, being applied or fallen back', () => {
    const at = '2026-11-28T10:00:00.000Z';
    const rows = configurationRows({
      name: device,
      status: {
        configuration: {
          network: {
            desiredGeneration: 5,
            appliedGeneration: 4,
            source: 'known-good',
            lastError: 'no link',
            updateTime: at,
          },
          ssh: { desiredGeneration: 5, appliedGeneration: 5, source: 'desired', updateTime: at },
          proxy: { desiredGeneration: 6, appliedGeneration: 5, source: 'desired', updateTime: at },
          logging: { desiredGeneration: 1, source: 'factory', updateTime: at },
        },
      },
    });
    expect(rows.map((r) => [r.part, r.state, r.generations, r.lastError])).toEqual([
      ['network', 'fallen back to the last known-good configuration', '4 applied of 5', 'no link'],
      ['ssh', 'applied', '5 applied of 5', ''],
      ['proxy', 'being applied', '5 applied of 6', ''],
      ['logging', 'fallen back to the factory configuration', 'none applied of 1', ''],
    ]);
  });

  it('writes quantities in the unit their field names', () => {
    expect(formatQuantity('sizeBytes', 64 * 1024 ** 3)).toBe('64.0 GiB');
    expect(formatQuantity('mainCelsius', 48.25)).toBe('48.3 °C');
    expect(formatQuantity('cpuPercent', 7)).toBe('7.0 %');
    expect(formatQuantity('speedMbps', 2500)).toBe('2.5 Gbit/s');
    expect(formatQuantity('speedMbps', 100)).toBe('100 Mbit/s');
    expect(formatQuantity('speedGHz', 1.8)).toBe('1.8 GHz');
    expect(formatQuantity('durationMs', 250)).toBe('250 ms');
    expect(formatQuantity('durationMs', 61_000)).toBe('61 s');
    expect(formatQuantity('cores', 4)).toBe('4');
  });
});
