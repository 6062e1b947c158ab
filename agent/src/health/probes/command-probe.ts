import { runInProcessGroup } from '../../hooks/process-group.js';
import type { Probe } from './probe.js';
import { healthy, missingMember, unhealthy } from './probe.js';

/** Lines of output kept for the message of a failing command. */
const KEPT_LINES = 3;

/**
 * Command: argv runs without a shell in its own process group; exit status 0 is healthy. When the run's
 * timeout passes the whole group is killed (SIGTERM, SIGKILL after a second).
 */
export const commandProbe: Probe = async (spec, signal, timeoutMs) => {
  const command = spec.command;
  if (command === undefined) return missingMember(spec);
  const [file, ...args] = command.argv;
  if (file === undefined) return missingMember(spec);
  const tail: string[] = [];
  const outcome = await runInProcessGroup({
    file,
    args,
    // the monitor counts the timeout; this one only makes sure nothing is left behind
    timeoutMs: timeoutMs + 1_000,
    killGraceMs: 1_000,
    signal,
    onOutput: (_stream, line) => {
      if (line.trim() === '') return;
      tail.push(line);
      if (tail.length > KEPT_LINES) tail.shift();
    },
  });
  const said = tail.length > 0 ? `: ${tail.join(' | ')}` : '';
  if (outcome.error !== undefined) return unhealthy(`cannot run ${file}: ${outcome.error}`);
  if (outcome.exitCode === 0) return healthy(`${file} exited 0`);
  if (outcome.exitCode !== undefined) return unhealthy(`${file} exited ${outcome.exitCode}${said}`);
  return unhealthy(`${file} was ended by ${outcome.signal ?? 'a signal'}${said}`);
};
