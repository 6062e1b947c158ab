import { describe, expect, it } from 'vitest';
import { execFileCommands } from '../../src/config-apply/command-runner.js';

// The real adapter device configuration runs system commands through (systemctl, sshd, netplan, networkctl).
describe('execFileCommands', () => {
  const commands = execFileCommands();

  it('answers exit code 0 and the output without its final newline', async () => {
    expect(await commands.run(['sh', '-c', 'printf "one\\ntwo\\n"; echo warning >&2'])).toEqual({
      exitCode: 0,
      stdout: 'one\ntwo',
      stderr: 'warning',
    });
  });

  it('answers a failing exit code with what the command said, without throwing', async () => {
    expect(await commands.run(['sh', '-c', 'echo "bad unit" >&2; exit 5'])).toEqual({
      exitCode: 5,
      stdout: '',
      stderr: 'bad unit',
    });
  });

  it('runs argv without a shell: arguments are not interpreted', async () => {
    expect((await commands.run(['echo', '$HOME', '*', ';', 'true'])).stdout).toBe('$HOME * ; true');
  });

  it('answers 127 for a command that cannot be started, and for an empty argv', async () => {
    const missing = await commands.run(['/nonexistent/systemctl', 'status']);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toBe('cannot run /nonexistent/systemctl: ENOENT');
    expect(await commands.run([])).toEqual({ exitCode: 127, stdout: '', stderr: 'empty command' });
  });

  it('kills a command that outlives the timeout and answers 127', async () => {
    const result = await execFileCommands({ timeoutMs: 300 }).run(['sleep', '30']);
    expect(result).toEqual({ exitCode: 127, stdout: '', stderr: 'sleep timed out after 300 ms and was killed' });
  });

  it('answers 127 for a command ended by a signal', async () => {
    const result = await commands.run(['sh', '-c', 'kill -TERM $$']);
    expect(result).toEqual({ exitCode: 127, stdout: '', stderr: 'sh was ended by SIGTERM' });
  });

  it("adds the extra environment to the agent's own", async () => {
    const result = await execFileCommands({ env: { OUTPOST_TEST_EXTRA: 'yes' } }).run([
      'sh',
      '-c',
      'echo "$OUTPOST_TEST_EXTRA $PATH"',
    ]);
    expect(result.stdout).toBe(`yes ${process.env.PATH ?? ''}`);
  });
});
