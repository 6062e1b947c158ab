import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandKind, exampleBlocks, shellCommands, synopsisProblem } from './helpers/readme-examples.js';
import { NOT_RUN_PREFIX, STEP_PREFIX, blockScript, substituted } from './helpers/readme-shell.js';
import type { ExampleWorld } from './helpers/readme-shell.js';

describe('shellCommands', () => {
  it('joins continued lines and multi-line quotes into one command, and drops comment lines', () => {
    const shell = [
      '# a comment line',
      'outpost a \\',
      '  --b c   # trailing comment',
      '',
      `outpost create --json '{"x":1,`,
      `  "y":"# not a comment"}'`,
      'echo "it\'s \\"quoted\\"" # done',
    ].join('\n');
    expect(shellCommands(shell)).toEqual([
      { text: 'outpost a \\\n  --b c   # trailing comment', line: 2 },
      { text: `outpost create --json '{"x":1,\n  "y":"# not a comment"}'`, line: 5 },
      { text: 'echo "it\'s \\"quoted\\"" # done', line: 7 },
    ]);
  });

  it('refuses an unclosed quote rather than running half a command', () => {
    expect(() => shellCommands(`outpost create --json '{"x":1}`)).toThrow(/unclosed ' quote/);
  });
});

describe('exampleBlocks', () => {
  it('takes only sh blocks marked as examples, with their section and line', () => {
    const markdown = [
      '# Title', // 1
      '```sh', // 2
      'npm test', // 3
      '```', // 4
      '<!-- example: quick-start -->', // 5
      '', // 6
      '```sh', // 7
      'outpost iam list-keys', // 8
      '```', // 9
    ].join('\n');
    expect(exampleBlocks(markdown)).toEqual([
      { section: 'quick-start', line: 7, commands: [{ text: 'outpost iam list-keys', line: 8 }] },
    ]);
  });

  it('refuses a marker that is not followed by an sh block', () => {
    expect(() => exampleBlocks('<!-- example: devices -->\nSome text\n')).toThrow(/must be followed by a ```sh block/);
  });
});

describe('what the test does with a command', () => {
  const one = (text: string) => ({ text, line: 1 });

  it('tells synopses from examples, looking past quotes and comments', () => {
    expect(synopsisProblem(one('outpost devices reboot <device_name>'))).toBe('a <placeholder>');
    expect(synopsisProblem(one('outpost devices rollout-status --version 1.1.0 [--filter F]'))).toBe(
      'an [optional] part',
    );
    expect(synopsisProblem(one('outpost applications start|stop pod'))).toBe('a choice a|b');
    expect(synopsisProblem(one(`outpost list --filter 'a = "<b>"' # see <docs>`))).toBeUndefined();
    expect(synopsisProblem(one('outpost devices list devices --parent projects/acme/regions/-'))).toBeUndefined();
  });

  it('runs servers, agents and watches bounded, and does not run npm install', () => {
    expect(commandKind(one('npm start   # the server'))).toEqual({ kind: 'bounded' });
    expect(commandKind(one('droplet --device-root /outpost'))).toEqual({ kind: 'bounded' });
    expect(commandKind(one('outpost devices watch devices --parent p'))).toEqual({ kind: 'bounded' });
    expect(commandKind(one('droplet run-hook on-boot --device-root /outpost'))).toEqual({ kind: 'run' });
    expect(commandKind(one('outpost devices list devices --parent p'))).toEqual({ kind: 'run' });
    expect(commandKind(one('npm install'))).toMatchObject({ kind: 'not-run' });
    expect(commandKind(one('curl http://x'), false)).toMatchObject({ kind: 'not-run' });
    expect(commandKind(one('curl http://x'), true)).toEqual({ kind: 'run' });
  });
});

describe('blockScript', () => {
  const work = mkdtempSync(join(tmpdir(), 'outpost-readme-script-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let fresh = 0;
  const world: ExampleWorld = {
    serverUrl: 'http://127.0.0.1:4321',
    adminKey: 'opk_admin_secret',
    deviceRoot: '/tmp/gw-1',
    freshDeviceRoot: () => `/tmp/new-${++fresh}`,
    boundedPidsFile: join(work, 'pids'),
    curlInstalled: true,
  };

  it('puts the world in place of the README stand-ins', () => {
    expect(
      substituted(
        "curl 'http://127.0.0.1:8080/v1/x' && outpost devices scp a p/d/gw-1:/outpost/data/ && test -w /outpost",
        world,
      ),
    ).toBe("curl 'http://127.0.0.1:4321/v1/x' && outpost devices scp a p/d/gw-1:/tmp/gw-1/data/ && test -w /tmp/gw-1");
    expect(substituted('export OUTPOST_API_KEY=opk_admin_...', world)).toBe('export OUTPOST_API_KEY=opk_admin_secret');
    expect(substituted('droplet --device-root /outpost --server https://outpost.example', world)).toBe(
      'droplet --device-root /tmp/new-1 --server http://127.0.0.1:4321',
    );
    expect(substituted('outpost limits get limits projects/acme/limits/eu/devices.outpost/devices', world)).toBe(
      'outpost limits get limits projects/acme/limits/eu/devices.outpost/devices',
    );
  });

  /** Runs the script of `shell` with `npm` and `droplet` standing for the given shell snippets. */
  async function run(shell: string, fakes: Record<string, string> = {}) {
    const bin = mkdtempSync(join(work, 'bin-'));
    for (const [name, body] of Object.entries(fakes)) {
      writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
    }
    writeFileSync(world.boundedPidsFile, '');
    const script = join(bin, 'block.sh');
    writeFileSync(script, blockScript(shellCommands(shell), world));
    return new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', [script], { env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` } });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
  }

  it('runs every command in order and stops at the first that fails, naming it', async () => {
    const passed = await run('A=1\necho "a=$A"\nnpm install');
    expect(passed.code).toBe(0);
    expect(passed.output).toContain(`${STEP_PREFIX}echo "a=$A"\na=1\n`);
    expect(passed.output).toContain(`${NOT_RUN_PREFIX}npm install`);

    const failed = await run('echo one\nfalse   # fails\necho never');
    expect(failed.code).not.toBe(0);
    expect(failed.output).toContain('✗ exit status 1: false');
    expect(failed.output).not.toContain('never');
  });

  it('interrupts a bounded command that keeps running, and fails one that stops with an error', async () => {
    const server = await run('npm start', {
      npm: `trap 'echo interrupted; exit 0' INT\necho listening\nwhile true; do sleep 0.1; done`,
    });
    expect(server.code).toBe(0);
    expect(server.output).toContain('listening\ninterrupted\n(stopped with Ctrl-C)');
    expect(readFileSync(world.boundedPidsFile, 'utf8').trim()).toMatch(/^\d+$/);

    const crashed = await run('droplet --device-root /outpost', { droplet: 'echo "refused: $2"; exit 78' });
    expect(crashed.code).not.toBe(0);
    expect(crashed.output).toContain('refused: /tmp/new-');
    expect(crashed.output).toContain('(ended by itself with exit status 78)');
  });
});
