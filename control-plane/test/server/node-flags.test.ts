import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTROL_PLANE_NODE_FLAGS } from '../../src/server/node-flags.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${REPO}control-plane/bin/outpost-server.js`;

describe('the control plane node flags', () => {
  it('are what the outpost-server command starts node with', () => {
    // a preload that prints node's own flags and exits before the server would start
    const printFlags = `data:text/javascript,${encodeURIComponent('console.log(JSON.stringify(process.execArgv)); process.exit(0);')}`;
    const out = execFileSync(BIN, [], { env: { ...process.env, NODE_OPTIONS: `--import ${printFlags}` } });
    expect(JSON.parse(out.toString())).toEqual(expect.arrayContaining([...CONTROL_PLANE_NODE_FLAGS]));
  });

  it('are on npm start and on the README systemd unit', () => {
    const start = (JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { scripts: { start: string } }).scripts
      .start;
    const units = readFileSync(`${REPO}README.md`, 'utf8')
      .split('\n')
      .filter(
        (line) => line.startsWith('ExecStart=/usr/bin/node') && line.includes('control-plane/dist/server/main.js'),
      );
    expect(units.length).toBeGreaterThan(0);
    for (const command of [start, ...units]) {
      const beforeMain = command.slice(0, command.indexOf('control-plane/dist/server/main.js'));
      for (const flag of CONTROL_PLANE_NODE_FLAGS) expect(beforeMain).toContain(flag);
    }
  });
});
