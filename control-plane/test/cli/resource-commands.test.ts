import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerResourceCommands, watchLines, type CliResourceDefinition } from '../../src/cli/resource-commands.js';
import { runCli, startRecordingServer, type Registrar } from './harness.js';

const GADGETS: CliResourceDefinition = {
  kind: 'Gadget',
  singular: 'gadget',
  plural: 'gadgets',
  patterns: [{ parentTemplate: 'projects/{project}' }],
};
const MODELS: CliResourceDefinition = {
  kind: 'Model',
  singular: 'model',
  plural: 'models',
  patterns: [{ parentTemplate: '' }],
  without: ['create', 'watch'],
};

const gadget = (id: string, extra: Record<string, unknown> = {}) => ({
  name: `projects/p/gadgets/${id}`,
  displayName: id.toUpperCase(),
  spec: { size: id.length },
  ...extra,
});

const register: Registrar = (program, ctxFactory) =>
  registerResourceCommands(program.command('things').description('test resources'), [GADGETS, MODELS], ctxFactory, {
    columns: { gadgets: ['name', 'spec.size'] },
  });

describe('resource commands', () => {
  let server: Awaited<ReturnType<typeof startRecordingServer>>;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'outpost-cli-'));

  beforeAll(async () => {
    server = await startRecordingServer((req, res) => {
      const route = `${req.method} ${req.path}`;
      if (route === 'GET /v1/projects/p/gadgets') {
        const token = req.query.get('pageToken');
        if (token === null) res.json({ gadgets: [gadget('a'), gadget('bb')], nextPageToken: 't2' });
        else res.json({ gadgets: [gadget('ccc')] });
      } else if (route === 'GET /v1/models') {
        res.json({ models: [{ name: 'models/m1' }] });
      } else if (route === 'GET /v1/projects/p/gadgets/a') {
        res.json(gadget('a'));
      } else if (route === 'GET /v1/gadgets:batchGet') {
        res.json({ gadgets: [gadget('a')], missing: ['projects/p/gadgets/zz'] });
      } else if (route === 'POST /v1/projects/p/gadgets') {
        res.json({ ...(req.body as object), metadata: { uuid: 'u1' } });
      } else if (route === 'PUT /v1/projects/p/gadgets/a') {
        res.json(req.body);
      } else if (route === 'DELETE /v1/projects/p/gadgets/a') {
        res.json({});
      } else if (route === 'POST /v1/projects/p/gadgets:watch') {
        res.setHeader('content-type', 'application/x-ndjson');
        res.write(
          `${JSON.stringify({ gadgetChanges: [{ added: { gadget: gadget('a'), viewIndex: 0 } }], isCurrent: true })}\n`,
        );
        res.write(
          JSON.stringify({
            gadgetChanges: [
              { modified: { name: 'projects/p/gadgets/a', gadget: gadget('a'), fieldMask: 'spec.size,displayName' } },
            ],
          }).slice(0, 20),
        );
        setTimeout(() => {
          res.write(
            `${JSON.stringify({ gadgetChanges: [{ modified: { name: 'projects/p/gadgets/a', gadget: gadget('a'), fieldMask: 'spec.size,displayName' } }] }).slice(20)}\n`,
          );
          res.end(
            `${JSON.stringify({ gadgetChanges: [{ removed: { name: 'projects/p/gadgets/a', viewIndex: 0 } }] })}\n`,
          );
        }, 20);
      } else {
        res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: `${route} not found` } });
      }
    });
    env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: 'k' };
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (...argv: string[]) => runCli(argv, { env, register });
  const last = () => server.requests.at(-1);

  it('lists one page with every query option and hints at the next page', async () => {
    const result = await run(
      'things',
      'list',
      'gadgets',
      '--parent',
      'projects/p',
      '--filter',
      'spec.size > 1',
      '--order-by',
      'name desc',
      '--field-mask',
      'spec',
      '--view',
      'BASIC',
      '--page-size',
      '2',
    );
    expect(result).toEqual({
      code: 0,
      stdout: ['NAME                    SPEC.SIZE', 'projects/p/gadgets/a    1', 'projects/p/gadgets/bb   2', ''].join(
        '\n',
      ),
      stderr: 'more results: add --page-token t2 (or --all)\n',
    });
    expect(Object.fromEntries(last()?.query ?? [])).toEqual({
      filter: 'spec.size > 1',
      orderBy: 'name desc',
      fieldMask: 'spec',
      view: 'BASIC',
      pageSize: '2',
    });
    expect(last()?.authorization).toBe('Bearer k');
  });

  it('follows every page with --all and prints the whole list as JSON', async () => {
    const result = await run('things', 'list', 'gadgets', '--parent', 'projects/p', '--all', '-o', 'json');
    expect(JSON.parse(result.stdout)).toEqual({ gadgets: [gadget('a'), gadget('bb'), gadget('ccc')] });
    expect(last()?.query.get('pageToken')).toBe('t2');
  });

  it('lists a top-level collection without --parent but needs it for nested ones', async () => {
    expect((await run('things', 'list', 'models')).stdout).toBe('NAME\nmodels/m1\n');
    expect(await run('things', 'list', 'gadgets')).toMatchObject({ code: 2, stderr: 'error: gadgets need --parent\n' });
  });

  it('gets one resource as field lines, or as YAML', async () => {
    const table = await run('things', 'get', 'gadgets', 'projects/p/gadgets/a');
    expect(table.stdout).toBe('name:          projects/p/gadgets/a\ndisplayName:   A\nspec.size:     1\n');
    const yaml = await run('things', 'get', 'gadgets', 'projects/p/gadgets/a', '-o', 'yaml', '--field-mask', 'spec');
    expect(yaml.stdout).toBe('name: projects/p/gadgets/a\ndisplayName: A\nspec:\n  size: 1\n');
    expect(last()?.query.get('fieldMask')).toBe('spec');
  });

  it('batch-gets several names and reports the missing ones', async () => {
    const result = await run('things', 'batch-get', 'gadgets', 'projects/p/gadgets/a', 'projects/p/gadgets/zz');
    expect(last()?.query.getAll('names')).toEqual(['projects/p/gadgets/a', 'projects/p/gadgets/zz']);
    expect(result.stdout).toBe('NAME                   SPEC.SIZE\nprojects/p/gadgets/a   1\n');
    expect(result.stderr).toBe('missing: projects/p/gadgets/zz\n');
  });

  it('creates from --json with --id naming the resource', async () => {
    const result = await run(
      'things',
      'create',
      'gadgets',
      '--parent',
      'projects/p',
      '--id',
      'new',
      '--json',
      '{"displayName":"N"}',
      '-o',
      'json',
    );
    expect(last()).toMatchObject({
      method: 'POST',
      path: '/v1/projects/p/gadgets',
      body: { name: 'projects/p/gadgets/new', displayName: 'N' },
    });
    expect(JSON.parse(result.stdout)).toEqual({
      name: 'projects/p/gadgets/new',
      displayName: 'N',
      metadata: { uuid: 'u1' },
    });
  });

  it('creates from a YAML file and from stdin', async () => {
    const file = join(dir, 'gadget.yaml');
    writeFileSync(file, 'displayName: From file\nspec:\n  size: 3\n');
    expect((await run('things', 'create', 'gadgets', '--parent', 'projects/p', '--file', file)).code).toBe(0);
    expect(last()?.body).toEqual({ displayName: 'From file', spec: { size: 3 } });
    await runCli(['things', 'create', 'gadgets', '--parent', 'projects/p', '--file', '-'], {
      env,
      register,
      stdin: '{"displayName":"stdin"}',
    });
    expect(last()?.body).toEqual({ displayName: 'stdin' });
  });

  it('updates with the name from the command line, the mask and allowMissing in the query', async () => {
    const result = await run(
      'things',
      'update',
      'gadgets',
      'projects/p/gadgets/a',
      '--json',
      '{"spec":{"size":9}}',
      '--update-mask',
      'spec.size',
      '--allow-missing',
      '-o',
      'json',
    );
    expect(result.code).toBe(0);
    expect(last()).toMatchObject({
      method: 'PUT',
      path: '/v1/projects/p/gadgets/a',
      body: { name: 'projects/p/gadgets/a', spec: { size: 9 } },
    });
    expect(Object.fromEntries(last()?.query ?? [])).toEqual({ updateMask: 'spec.size', allowMissing: 'true' });
  });

  it('deletes, passing allowMissing', async () => {
    expect(await run('things', 'delete', 'gadgets', 'projects/p/gadgets/a', '--allow-missing')).toEqual({
      code: 0,
      stdout: 'deleted projects/p/gadgets/a\n',
      stderr: '',
    });
    expect(last()?.query.get('allowMissing')).toBe('true');
  });

  it('watches: one line per change in table mode, NDJSON with -o json', async () => {
    const table = await run(
      'things',
      'watch',
      'gadgets',
      '--parent',
      'projects/p',
      '--filter',
      'spec.size = 1',
      '--type',
      'stateless',
    );
    expect(last()?.body).toEqual({ type: 'STATELESS', filter: 'spec.size = 1' });
    expect(table.stdout).toBe(
      [
        'ADDED     projects/p/gadgets/a',
        'SYNCED',
        'MODIFIED  projects/p/gadgets/a   spec.size=1   displayName=A',
        'REMOVED   projects/p/gadgets/a',
        '',
      ].join('\n'),
    );
    const json = await run(
      'things',
      'watch',
      'gadgets',
      '--parent',
      'projects/p',
      '-o',
      'json',
      '--field-mask',
      'spec',
    );
    expect(last()?.body).toEqual({ type: 'STATEFUL', fieldMask: 'spec' });
    const lines = json.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2] ?? '')).toEqual({
      gadgetChanges: [{ removed: { name: 'projects/p/gadgets/a', viewIndex: 0 } }],
    });
  });

  it('prints server errors with exit 1', async () => {
    expect(await run('things', 'get', 'gadgets', 'projects/p/gadgets/nope')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: NOT_FOUND: GET /v1/projects/p/gadgets/nope not found\n',
    });
  });

  it.each([
    [
      ['things', 'list', 'widgets', '--parent', 'p'],
      /value 'widgets' is invalid for argument 'plural'. Allowed choices are gadgets, models/,
    ],
    [
      ['things', 'create', 'models', '--json', '{}'],
      /value 'models' is invalid for argument 'plural'. Allowed choices are gadgets\./,
    ],
    [['things', 'get', 'gadgets', 'projects/p/models/m'], /"projects\/p\/models\/m" is not the name of one of gadgets/],
    [['things', 'create', 'gadgets', '--parent', 'projects/p'], /exactly one of --file <path> and --json <text>/],
    [['things', 'create', 'gadgets', '--parent', 'projects/p', '--json', '{', '--id', 'x'], /--json is not valid JSON/],
    [['things', 'create', 'gadgets', '--parent', 'projects/p', '--json', '[1]'], /must be a JSON or YAML object/],
    [
      ['things', 'create', 'gadgets', '--parent', 'projects/p', '--file', '/nonexistent/x.yaml'],
      /cannot read \/nonexistent\/x.yaml/,
    ],
    [
      [
        'things',
        'create',
        'gadgets',
        '--parent',
        'projects/p',
        '--id',
        'b',
        '--json',
        '{"name":"projects/p/gadgets/a"}',
      ],
      /--id names projects\/p\/gadgets\/b but the resource names projects\/p\/gadgets\/a/,
    ],
    [
      ['things', 'update', 'gadgets', 'projects/p/gadgets/a', '--json', '{"name":"projects/p/gadgets/b"}'],
      /the command names projects\/p\/gadgets\/a but the resource names/,
    ],
    [
      ['things', 'list', 'gadgets', '--parent', 'projects/p', '--page-size', '0'],
      /--page-size must be a positive integer/,
    ],
    [
      ['things', 'list', 'gadgets', '--parent', 'projects/p', '--view', 'ALL'],
      /Allowed choices are NAME, BASIC, DETAIL, FULL/,
    ],
    [
      ['things', 'watch', 'gadgets', '--parent', 'projects/p', '--type', 'eager'],
      /Allowed choices are stateful, stateless/,
    ],
  ])('exits 2 on the usage error %j', async (argv, message) => {
    const count = server.requests.length;
    const result = await runCli(argv, { env, register });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(server.requests.length).toBe(count);
  });
});

describe('watchLines', () => {
  it('shows resets and changes without a name', () => {
    expect(
      watchLines(
        { singular: 'gadget' },
        { isHardReset: true, gadgetChanges: [{ current: { gadget: { name: 'g' } } }] },
      ),
    ).toEqual(['RESET     hard reset: the snapshot follows again', 'CURRENT   g']);
    expect(watchLines({ singular: 'gadget' }, { isSoftReset: true, snapshotSize: 3 })).toEqual([
      'RESET     soft reset',
    ]);
    expect(watchLines({ singular: 'gadget' }, 'junk')).toEqual([]);
  });
});
