import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGrant } from '../../src/cli/iam-commands.js';
import { runCli, startRecordingServer } from './harness.js';

const KEY = {
  name: 'apiKeys/k1',
  displayName: 'ci',
  grants: [{ permission: '*', scope: 'projects/p' }],
  createTime: '2025-01-01T00:00:00.000Z',
};

// keys minted by keys scoped to organizations: such grants hold only while the project lies under them
const MINTED = {
  ...KEY,
  name: 'apiKeys/k3',
  displayName: 'minted',
  grants: [
    { permission: '*', scope: 'projects/p', grantedThrough: ['organizations/o'] },
    { permission: '*', scope: 'projects/r' },
  ],
};
const MINTED_TWICE = {
  ...KEY,
  name: 'apiKeys/k4',
  grants: [{ permission: '*', scope: 'projects/q', grantedThrough: ['organizations/o', 'organizations/u'] }],
};

describe('outpost iam', () => {
  let server: Awaited<ReturnType<typeof startRecordingServer>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startRecordingServer((req, res) => {
      if (req.authorization !== 'Bearer the-key') {
        res
          .status(401)
          .json({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'invalid or revoked API key' } });
      } else if (req.method === 'POST' && req.path === '/v1/apiKeys') {
        res.json({ apiKey: { ...KEY, ...(req.body as object) }, secret: 'opk_k1_s3cret' });
      } else if (req.method === 'GET' && req.path === '/v1/apiKeys') {
        res.json({
          apiKeys: [
            KEY,
            { ...KEY, name: 'apiKeys/k2', displayName: 'ops', grants: [{ permission: '*', scope: '*' }] },
            MINTED,
          ],
        });
      } else if (req.method === 'GET' && req.path === '/v1/apiKeys/k1') {
        res.json(KEY);
      } else if (req.method === 'GET' && req.path === '/v1/apiKeys/k4') {
        res.json(MINTED_TWICE);
      } else if (req.method === 'DELETE' && req.path === '/v1/apiKeys/k1') {
        res.json({});
      } else {
        res
          .status(403)
          .json({ error: { code: 403, status: 'PERMISSION_DENIED', message: `missing permission on ${req.path}` } });
      }
    });
    env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: 'the-key' };
  });
  afterAll(() => server.close());

  it('creates a key from repeated --grant flags and prints the secret once', async () => {
    const result = await runCli(
      [
        'iam',
        'create-key',
        '--display-name',
        'ci',
        '--grant',
        '*@projects/p',
        '--grant',
        'services/*/permissions/devices.get@*',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(server.requests.at(-1)?.body).toEqual({
      displayName: 'ci',
      grants: [
        { permission: '*', scope: 'projects/p' },
        { permission: 'services/*/permissions/devices.get', scope: '*' },
      ],
    });
    expect(result.stdout).toMatch(/^name: +apiKeys\/k1$/m);
    expect(result.stdout).toMatch(/^grants: +\*@projects\/p, services\/\*\/permissions\/devices\.get@\*$/m);
    expect(result.stdout.match(/opk_k1_s3cret/g)).toHaveLength(1);
    expect(result.stderr).toContain('shown only once');
  });

  it('prints the created key as JSON with -o json', async () => {
    const result = await runCli(['-o', 'json', 'iam', 'create-key', '--display-name', 'x', '--grant', '*@*'], { env });
    expect(JSON.parse(result.stdout)).toMatchObject({ secret: 'opk_k1_s3cret', apiKey: { name: 'apiKeys/k1' } });
  });

  it('lists keys as a table, and as YAML', async () => {
    const table = await runCli(['iam', 'list-keys'], { env });
    expect(table.stdout).toBe(
      [
        'NAME         DISPLAY_NAME   GRANTS                                                 CREATE_TIME',
        'apiKeys/k1   ci             *@projects/p                                           2025-01-01T00:00:00.000Z',
        'apiKeys/k2   ops            *@*                                                    2025-01-01T00:00:00.000Z',
        'apiKeys/k3   minted         *@projects/p (through organizations/o), *@projects/r   2025-01-01T00:00:00.000Z',
        '',
      ].join('\n'),
    );
    const yaml = await runCli(['iam', 'list-keys', '--output', 'yaml'], { env });
    expect(yaml.stdout).toContain('apiKeys:\n  - name: apiKeys/k1\n');
  });

  it('shows every organization a grant came through', async () => {
    const shown = await runCli(['iam', 'get-key', 'k4'], { env });
    expect(shown.stdout).toMatch(/^grants: +\*@projects\/q \(through organizations\/o and organizations\/u\)$/m);
    const json = await runCli(['iam', 'get-key', 'k4', '-o', 'json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(MINTED_TWICE);
  });

  it('gets and revokes a key by id or by name', async () => {
    expect((await runCli(['iam', 'get-key', 'apiKeys/k1', '-o', 'json'], { env })).stdout).toBe(
      `${JSON.stringify(KEY, null, 2)}\n`,
    );
    const revoked = await runCli(['iam', 'revoke-key', 'k1'], { env });
    expect(revoked).toEqual({ code: 0, stdout: 'revoked apiKeys/k1\n', stderr: '' });
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/v1/apiKeys/k1' });
  });

  it('uses --server and --key over the environment', async () => {
    const result = await runCli(['iam', 'list-keys', '--server', server.url, '--key', 'the-key'], {
      env: { OUTPOST_SERVER: 'http://127.0.0.1:1', OUTPOST_API_KEY: 'wrong' },
    });
    expect(result.code).toBe(0);
  });

  it('prints API errors as error: <STATUS>: <message> and exits 1', async () => {
    expect(await runCli(['iam', 'list-keys'], { env: { OUTPOST_SERVER: server.url } })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: UNAUTHENTICATED: invalid or revoked API key\n',
    });
    expect(await runCli(['iam', 'revoke-key', 'k9'], { env })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: PERMISSION_DENIED: missing permission on /v1/apiKeys/k9\n',
    });
  });

  it('reports an unreachable server as UNAVAILABLE with exit 1', async () => {
    const result = await runCli(['iam', 'list-keys', '--server', 'http://127.0.0.1:1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: UNAVAILABLE: cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  it.each([
    [['iam', 'create-key', '--display-name', 'x'], /required option '--grant <permission@scope>' not specified/],
    [['iam', 'create-key', '--display-name', 'x', '--grant', 'no-scope'], /must look like <permission>@<scope>/],
    [['iam', 'list-keys', '--colour'], /unknown option '--colour'/],
    [['iam', 'list-keys', '-o', 'xml'], /argument 'xml' is invalid. Allowed choices are table, json, yaml/],
    [['iam', 'revoke-key'], /missing required argument 'id'/],
    [['iam', 'revoke-key', 'a/b'], /"a\/b" is not an API key id/],
    [['nonsense'], /unknown command 'nonsense'/],
    [['iam', 'list-keys', '--server', 'ftp://x'], /--server: invalid server address "ftp:\/\/x"/],
    [[], /Usage: outpost/],
  ])('exits 2 on the usage error %j', async (argv, message) => {
    const result = await runCli(argv, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('exits 0 for --help and --cli-version (--version belongs to publish and rollout-status)', async () => {
    const help = await runCli(['iam', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create-key');
    const version = await runCli(['--cli-version']);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) as string });
  });
});

describe('parseGrant', () => {
  it('splits at the last @', () => {
    expect(parseGrant('services/a/permissions/b.c@projects/p')).toEqual({
      permission: 'services/a/permissions/b.c',
      scope: 'projects/p',
    });
    expect(parseGrant('*@*')).toEqual({ permission: '*', scope: '*' });
    expect(() => parseGrant('*@')).toThrow();
    expect(() => parseGrant('@*')).toThrow();
  });
});
