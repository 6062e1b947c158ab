import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerResourceCommands, type CliResourceDefinition } from '../../src/cli/resource-commands.js';
import { runCli, startRecordingServer, type Registrar } from './harness.js';

// What the table forms show: only the columns that have values, the name first, the words of the spec, and in
// a watch the values of the masked fields. json keeps what the server sent.
const LAMPS: CliResourceDefinition = {
  kind: 'Lamp',
  singular: 'lamp',
  plural: 'lamps',
  patterns: [{ parentTemplate: 'projects/{project}' }],
  filterSchema: {
    fields: [
      { path: 'status.power', type: 'enum', enumValues: ['ON', 'OFF'], enumAliases: { Lit: 'ON', Dark: 'OFF' } },
    ],
  },
};

const register: Registrar = (program, ctxFactory) =>
  registerResourceCommands(program.command('things').description('test resources'), [LAMPS], ctxFactory, {
    columns: {
      lamps: [
        { header: 'NAME', path: 'name' },
        { header: 'POWER', path: 'status.power' },
        { header: 'WATTS', path: 'spec.watts' },
      ],
    },
  });

const ndjson = (...messages: unknown[]): string => messages.map((m) => `${JSON.stringify(m)}\n`).join('');

describe('table output', () => {
  let server: Awaited<ReturnType<typeof startRecordingServer>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startRecordingServer((req, res) => {
      const route = `${req.method} ${req.path}`;
      if (route === 'GET /v1/projects/pp/lamps' && req.query.get('view') === 'NAME') {
        res.json({ lamps: [{ name: 'projects/pp/lamps/aa' }, { name: 'projects/pp/lamps/bb' }] });
      } else if (route === 'GET /v1/projects/pp/lamps') {
        res.json({
          lamps: [
            { name: 'projects/pp/lamps/aa', status: { power: 'ON' } },
            { name: 'projects/pp/lamps/bb', spec: { watts: 60 }, status: { power: 'OFF' } },
            { name: 'projects/pp/lamps/cc', status: { power: 'BROKEN' } },
          ],
        });
      } else if (route === 'GET /v1/projects/pp/lamps/aa') {
        // the name last, as a server building the document member by member may send it
        res.json({ spec: { watts: 40 }, status: { power: 'ON' }, name: 'projects/pp/lamps/aa' });
      } else if (route === 'POST /v1/projects/pp/lamps:watch') {
        res.setHeader('content-type', 'application/x-ndjson');
        res.end(
          ndjson(
            {
              lampChanges: [
                { current: { lamp: { name: 'projects/pp/lamps/aa', spec: { watts: 40 }, status: { power: 'ON' } } } },
                { current: { lamp: { name: 'projects/pp/lamps/bb', status: { power: 'OFF' } } } },
              ],
              isCurrent: true,
            },
            { lampChanges: [{ removed: { name: 'projects/pp/lamps/bb' } }] },
          ),
        );
      } else {
        res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: `${route} not found` } });
      }
    });
    env = { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: 'k' };
  });
  afterAll(() => server.close());

  const run = (...argv: string[]) => runCli(argv, { env, register });

  it('leaves out the columns no row has a value for (--view NAME)', async () => {
    expect((await run('things', 'list', 'lamps', '--parent', 'projects/pp', '--view', 'NAME')).stdout).toBe(
      ['NAME', 'projects/pp/lamps/aa', 'projects/pp/lamps/bb', ''].join('\n'),
    );
  });

  it('shows the words of the spec for aliased enum values in tables, the values themselves in json', async () => {
    expect((await run('things', 'list', 'lamps', '--parent', 'projects/pp')).stdout).toBe(
      [
        'NAME                   POWER    WATTS',
        'projects/pp/lamps/aa   Lit',
        'projects/pp/lamps/bb   Dark     60',
        'projects/pp/lamps/cc   BROKEN',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await run('things', 'list', 'lamps', '--parent', 'projects/pp', '-o', 'json')).stdout);
    expect(json.lamps.map((l: { status: { power: string } }) => l.status.power)).toEqual(['ON', 'OFF', 'BROKEN']);
  });

  it('gets one resource with its name on the first line', async () => {
    expect((await run('things', 'get', 'lamps', 'projects/pp/lamps/aa')).stdout).toBe(
      ['name:           projects/pp/lamps/aa', 'spec.watts:     40', 'status.power:   Lit', ''].join('\n'),
    );
    expect((await run('things', 'get', 'lamps', 'projects/pp/lamps/aa', '-o', 'yaml')).stdout).toBe(
      'spec:\n  watts: 40\nstatus:\n  power: ON\nname: projects/pp/lamps/aa\n',
    );
  });

  it('watches with the values of the masked fields on each line', async () => {
    const result = await run(
      'things',
      'watch',
      'lamps',
      '--parent',
      'projects/pp',
      '--type',
      'stateless',
      '--field-mask',
      'status.power,spec.watts',
    );
    expect(result.stdout).toBe(
      [
        'CURRENT   projects/pp/lamps/aa   status.power=Lit   spec.watts=40',
        'CURRENT   projects/pp/lamps/bb   status.power=Dark   spec.watts=<none>',
        'SYNCED',
        'REMOVED   projects/pp/lamps/bb',
        '',
      ].join('\n'),
    );
  });
});
