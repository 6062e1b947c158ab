import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/processes.js';

// npm links the bins of a workspace package while `npm install` runs, before its prepare script builds dist/,
// and leaves out a bin whose file does not exist: every bin must be a committed file, not build output.
const BINS = ['agent', 'control-plane'].flatMap((pkg) => {
  const manifest = JSON.parse(readFileSync(join(REPO, pkg, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return Object.entries(manifest.bin).map(([command, file]) => ({ pkg, command, file: normalize(file) }));
});

const scratch = mkdtempSync(join(tmpdir(), 'outpost-bins-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the bins npm links (droplet, outpost, outpost-server)', () => {
  it('are all there', () => {
    expect(BINS.map((b) => b.command).sort()).toEqual(['droplet', 'outpost', 'outpost-server']);
  });

  it.each(BINS)('$command is an executable file outside dist/, there before any build', ({ pkg, file }) => {
    expect(file.split('/')[0]).not.toBe('dist');
    const path = join(REPO, pkg, file);
    expect(statSync(path).mode & 0o111).toBe(0o111);
    // node itself, or node with the flags it needs from the start (outpost-server: CONTROL_PLANE_NODE_FLAGS)
    expect(readFileSync(path, 'utf8')).toMatch(/^#!\/usr\/bin\/env (node|-S node( --[a-z-]+(=\w+)?)+)\n/);
  });

  it.each(BINS)('$command runs the built program (--help)', ({ pkg, command, file }) => {
    // run as npm's link runs it: the file itself, through its #! line
    const result = spawnSync(join(REPO, pkg, file), ['--help'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`Usage: ${command}`);
    expect(result.status).toBe(0);
  });

  it.each(BINS)('$command says to build first where dist/ does not exist yet', ({ pkg, command, file }) => {
    // a package as a fresh clone has it: its package.json and bins, nothing built
    const copy = join(scratch, command, file);
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(join(REPO, pkg, 'package.json'), join(scratch, command, 'package.json'));
    copyFileSync(join(REPO, pkg, file), copy);
    const result = spawnSync(process.execPath, [copy], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^${command} is not built yet \\(.*/dist/.*main\\.js is missing\\): run npm run build\\n$`),
    );
  });
});
