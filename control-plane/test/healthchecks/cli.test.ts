import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HealthCheck } from '@outpost/shared';
import { registerDeviceCommands } from '../../src/cli/device-commands.js';
import { healthCheckFromFlags, registerHealthCommands } from '../../src/cli/health-commands.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { runCli } from '../cli/harness.js';
import { perAttempt } from '../helpers/per-attempt.js';
import { startTestServer, TEST_ADMIN_KEY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const parent = 'projects/acme/regions/eu';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.dispose());

const outpost = (...argv: string[]) =>
  runCli(argv, {
    env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    register: (program, ctxFactory) => registerHealthCommands(registerDeviceCommands(program, ctxFactory), ctxFactory),
  });

describe('outpost devices create health-check, and the generic verbs on healthChecks', () => {
  it('creates each type from flags; lists, gets and deletes them', async (context) => {
    // the attempt's own region: its list holds exactly this attempt's checks
    const region = `${perAttempt(context, 'projects/acme')}/regions/eu`;
    const http = await outpost(
      'devices',
      'create',
      'health-check',
      '--parent',
      region,
      '--id',
      'web',
      '--type',
      'http',
      '--url',
      'http://127.0.0.1:8080/healthz',
      '--expected-status',
      '200-204',
      '--body-contains',
      'ok',
      '--interval',
      '30s',
      '--timeout',
      '2s',
      '--failure-threshold',
      '5',
      '--selector',
      'role=gateway',
      '--selector',
      'site=berlin',
      '-o',
      'json',
    );
    expect(http.stderr).toBe('');
    expect(http.code).toBe(0);
    expect((JSON.parse(http.stdout) as HealthCheck).spec).toEqual({
      type: 'HTTP',
      http: { url: 'http://127.0.0.1:8080/healthz', expectedStatus: { min: 200, max: 204 }, bodyContains: 'ok' },
      intervalSeconds: 30,
      timeoutSeconds: 2,
      failureThreshold: 5,
      selector: { matchLabels: { role: 'gateway', site: 'berlin' } },
    });

    const command = await outpost(
      '-o',
      'json',
      'devices',
      'create',
      'health-check',
      '--parent',
      region,
      '--id',
      'script',
      '--type',
      'command',
      '--interval',
      '1m',
      '--all-devices',
      '--',
      '/usr/local/bin/check-modem',
      '--quick',
    );
    expect(command.code).toBe(0);
    expect((JSON.parse(command.stdout) as HealthCheck).spec).toEqual({
      type: 'COMMAND',
      command: { argv: ['/usr/local/bin/check-modem', '--quick'] },
      intervalSeconds: 60,
      selector: { matchLabels: {} },
    });

    for (const args of [
      ['--id', 'rpc', '--type', 'grpc', '--host', '127.0.0.1', '--port', '50051', '--service', 'db'],
      ['--id', 'ping', '--type', 'icmp', '--host', '10.0.0.1'],
      ['--id', 'modem', '--type', 'device-file', '--path', '/dev/ttyUSB0', '--file-type', 'CHARACTER_DEVICE'],
      ['--id', 'ssh', '--type', 'tcp', '--host', '127.0.0.1', '--port', '22'],
    ]) {
      const created = await outpost('devices', 'create', 'health-check', '--parent', region, ...args);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
    }

    const list = await outpost('devices', 'list', 'healthChecks', '--parent', region);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+INTERVAL\s+SELECTOR$/);
    expect(list.stdout).toMatch(new RegExp(`${region}/healthChecks/modem\\s+DEVICE_FILE`));
    expect(list.stdout.trim().split('\n')).toHaveLength(7);

    const got = await outpost('devices', 'get', 'healthChecks', `${region}/healthChecks/rpc`, '-o', 'json');
    expect((JSON.parse(got.stdout) as HealthCheck).spec.grpc).toEqual({
      host: '127.0.0.1',
      port: 50051,
      service: 'db',
    });

    const deleted = await outpost('devices', 'delete', 'healthChecks', `${region}/healthChecks/rpc`);
    expect(deleted.stdout).toBe(`deleted ${region}/healthChecks/rpc\n`);

    // the generic create with a file still works next to the health-check form
    const generic = await outpost(
      'devices',
      'create',
      'healthChecks',
      '--parent',
      region,
      '--id',
      'raw',
      '--json',
      '{"spec":{"type":"ICMP","icmp":{"host":"127.0.0.1"}}}',
    );
    expect(generic.code).toBe(0);
  });

  it('refuses flags that do not fit the type (exit 2) and shows the server refusal of a bad definition (exit 1)', async () => {
    const missing = await outpost(
      'devices',
      'create',
      'health-check',
      '--parent',
      parent,
      '--type',
      'tcp',
      '--host',
      'h',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: --type tcp needs --port\n');
    const noParent = await outpost('devices', 'create', 'health-check', '--type', 'icmp', '--host', 'h');
    expect(noParent.code).toBe(2);
    expect(noParent.stderr).toBe('error: --parent is required\n');
    const badType = await outpost('devices', 'create', 'health-check', '--parent', parent, '--type', 'quic');
    expect(badType.code).toBe(2);
    const tooSlow = await outpost(
      'devices',
      'create',
      'health-check',
      '--parent',
      parent,
      '--type',
      'icmp',
      '--host',
      'h',
      '--interval',
      '1s',
      '--timeout',
      '2s',
    );
    expect(tooSlow.code).toBe(1);
    expect(tooSlow.stderr).toMatch(/INVALID_ARGUMENT: .*timeoutSeconds: must not be longer than intervalSeconds/);
  });

  it('healthCheckFromFlags keeps only what the type takes', () => {
    expect(() => healthCheckFromFlags({ parent, type: 'command' }, [])).toThrow(UsageError);
    expect(() => healthCheckFromFlags({ parent, type: 'icmp', host: 'h' }, ['extra'])).toThrow(/unexpected arguments/);
    expect(healthCheckFromFlags({ parent, type: 'icmp', host: 'h', id: 'x', displayName: 'X' }, [])).toEqual({
      name: `${parent}/healthChecks/x`,
      displayName: 'X',
      spec: { type: 'ICMP', icmp: { host: 'h' } },
    });
  });
});
