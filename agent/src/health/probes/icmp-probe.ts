import { runInProcessGroup } from '../../hooks/process-group.js';
import type { Probe } from './probe.js';
import { healthy, missingMember, unhealthy } from './probe.js';

/**
 * ICMP: one echo request through the system's `ping` (iputils-ping; Node has no raw sockets). Exit 0 is a
 * reply, 1 no reply; anything else (an unknown host, no `ping` installed) is reported as it is.
 */
export const icmpProbe: Probe = async (spec, signal, timeoutMs) => {
  const icmp = spec.icmp;
  if (icmp === undefined) return missingMember(spec);
  const waitSeconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  const said: string[] = [];
  const outcome = await runInProcessGroup({
    file: 'ping',
    args: ['-n', '-c', '1', '-W', waitSeconds, icmp.host],
    env: { ...process.env, LC_ALL: 'C' },
    timeoutMs: timeoutMs + 1_000,
    killGraceMs: 500,
    signal,
    onOutput: (stream, line) => {
      if (stream === 'stderr' && line.trim() !== '') said.push(line.trim());
    },
  });
  if (outcome.error !== undefined) {
    return unhealthy(
      /ENOENT/.test(outcome.error)
        ? 'cannot ping: the ping command is not installed on this device (install iputils-ping)'
        : `cannot run ping: ${outcome.error}`,
    );
  }
  if (outcome.exitCode === 0) return healthy(`${icmp.host} answers ping`);
  if (outcome.exitCode === 1) return unhealthy(`no ping reply from ${icmp.host}`);
  return unhealthy(`ping ${icmp.host} failed${said.length > 0 ? `: ${said.join(' | ')}` : ''}`);
};
