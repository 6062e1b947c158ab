import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const COMMON = fileURLToPath(new URL('../lib/common.sh', import.meta.url));

/** A build-all.sh-shaped script: a step's path taken from `timed` in a command substitution, then used. */
function runStep(step: string): { status: number | null; stdout: string; stderr: string } {
  const script = `set -euo pipefail; source "${COMMON}"; out=$(timed "timing: step" ${step}); echo "used $out"`;
  const run = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('timed (images/lib/common.sh)', () => {
  it('passes a step’s output on and logs its time', () => {
    const run = runStep('echo /built/thing');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('used /built/thing\n');
    expect(run.stderr).toMatch(/\[images\] timing: step: [\d.]+s/);
  });

  it('stops the build when the step fails, although errexit is off inside the command substitution', () => {
    const run = runStep("bash -c 'echo half; exit 3'");
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/timing: step: failed \(exit 3\)/);
  });
});
