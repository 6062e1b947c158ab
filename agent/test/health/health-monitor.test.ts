import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentMessage, AppliedHealthCheck, Condition, ProbeSpec } from '@outpost/shared';
import { HealthMonitor } from '../../src/health/health-monitor.js';
import type { ProbeOutcome } from '../../src/health/probes/probe.js';
import { runProbe } from '../../src/health/probes/run-probe.js';
import { StatusReporter } from '../../src/metrics/status-reporter.js';
import { isRunning } from '../hooks/helpers/hook-scripts.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { eventually } from '../helpers/eventually.js';
import { useTempDirs } from '../helpers/temp-dir.js';
import { startHttpTarget, startTcpTarget } from './helpers/targets.js';
import type { Target } from './helpers/targets.js';

const tempDir = useTempDirs();
const monitors: HealthMonitor[] = [];
const targets: Target[] = [];
afterEach(async () => {
  for (const monitor of monitors.splice(0)) monitor.stop();
  await Promise.all(targets.splice(0).map((t) => t.close()));
});

/** The real reporter on a link that keeps every status message it is given (no throttle). */
function reporterAndMessages() {
  const sent: AgentMessage[] = [];
  const reporter = new StatusReporter({
    link: { connected: true, send: (message) => (sent.push(message), true) },
    minIntervalMs: 0,
  });
  /** the successive values of one condition as sent: `status/reason` */
  const history = (type: string): string[] => {
    const values: string[] = [];
    for (const message of sent) {
      if (message.type !== 'status') continue;
      const condition = message.conditions?.find((c) => c.type === type);
      const value = condition === undefined ? '(none)' : `${condition.status}/${condition.reason}`;
      if (values.at(-1) !== value) values.push(value);
    }
    return values;
  };
  const condition = (type: string): Condition | undefined => reporter.current.conditions?.find((c) => c.type === type);
  return { reporter, sent, history, condition };
}

function monitorWith(reporter: StatusReporter, probe = runProbe): HealthMonitor {
  const monitor = new HealthMonitor({ reporter, logger: capturedLogger().logger, probe });
  monitors.push(monitor);
  return monitor;
}

const applied = (id: string, spec: ProbeSpec): AppliedHealthCheck => ({
  id,
  name: `projects/p/regions/r/healthChecks/${id}`,
  spec,
});

describe('HealthMonitor (real probes, real targets)', () => {
  it('flips a condition only after N results in a row, and reports each change once', async () => {
    const target = await startTcpTarget();
    const { reporter, sent, history, condition } = reporterAndMessages();
    const results: ProbeOutcome[] = [];
    const monitor = monitorWith(reporter, async (spec, signal, timeoutMs) => {
      const outcome = await runProbe(spec, signal, timeoutMs);
      results.push(outcome);
      return outcome;
    });
    monitor.apply([
      applied('port', {
        type: 'TCP',
        tcp: { host: '127.0.0.1', port: target.port },
        intervalSeconds: 0.05,
        successThreshold: 2,
        failureThreshold: 3,
      }),
    ]);
    expect(condition('Healthy/port')).toMatchObject({ status: 'Unknown', reason: 'Pending' });
    await eventually(() => expect(condition('Healthy/port')?.status).toBe('True'));
    expect(results.filter((r) => r.healthy).length).toBeGreaterThanOrEqual(2);

    await target.close();
    const passesBefore = results.length;
    await eventually(() => expect(condition('Healthy/port')?.status).toBe('False'));
    const failures = results.slice(passesBefore).filter((r) => !r.healthy).length;
    expect(failures).toBeGreaterThanOrEqual(3);
    expect(condition('Healthy/port')).toMatchObject({
      reason: 'Failing',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    // more failing runs change nothing (waited for by count: a loaded machine may run none within a fixed sleep)
    const runsAtFlip = results.length;
    await eventually(() => expect(results.length).toBeGreaterThanOrEqual(runsAtFlip + 2));
    expect(history('Healthy/port')).toEqual(['Unknown/Pending', 'True/Passing', 'False/Failing']);
    expect(sent.filter((m) => m.type === 'status')).toHaveLength(3);
  });

  it('cuts a hanging check at its timeout: the HTTP request is aborted, the command killed', async () => {
    const hanging = await startHttpTarget(() => {}); // accepts, never answers
    targets.push(hanging);
    const dir = await tempDir();
    const pidFile = join(dir, 'pid');
    const { reporter, condition } = reporterAndMessages();
    const monitor = monitorWith(reporter);
    const started = Date.now();
    monitor.apply([
      applied('web', {
        type: 'HTTP',
        http: { url: `http://127.0.0.1:${hanging.port}/` },
        intervalSeconds: 60,
        timeoutSeconds: 0.3,
        failureThreshold: 1,
      }),
      applied('script', {
        type: 'COMMAND',
        command: { argv: ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 600`] },
        intervalSeconds: 60,
        // from the spawn: time for the shell to write the pid the test reads, on a loaded machine
        timeoutSeconds: 3,
        failureThreshold: 1,
      }),
    ]);
    await eventually(() => {
      expect(condition('Healthy/web')).toMatchObject({
        status: 'False',
        reason: 'Timeout',
        message: 'no result within 0.3s',
      });
      expect(condition('Healthy/script')).toMatchObject({ status: 'False', reason: 'Timeout' });
    }, 30_000);
    // cut at the timeouts, not at the next run a minute later nor at the end of the sleep
    expect(Date.now() - started).toBeLessThan(30_000);
    await eventually(() => expect(hanging.closedSockets()).toBe(1));
    const pid = Number(await readFile(pidFile, 'utf8'));
    await eventually(async () => expect(await isRunning(pid)).toBe(false));
  });

  it('converges on the applied set: a removed check takes its condition away, OSReady stays; a changed one starts over', async () => {
    const target = await startTcpTarget();
    targets.push(target);
    const { reporter, condition } = reporterAndMessages();
    reporter.setCondition({ type: 'OSReady', status: 'True', reason: 'Converged', message: 'running 1.0.0' });
    const monitor = monitorWith(reporter);
    const tcp = applied('port', { type: 'TCP', tcp: { host: '127.0.0.1', port: target.port }, intervalSeconds: 0.05 });
    const file = applied('null', { type: 'DEVICE_FILE', deviceFile: { path: '/dev/null' }, intervalSeconds: 0.05 });
    monitor.apply([tcp, file]);
    await eventually(() => {
      expect(condition('Healthy/port')?.status).toBe('True');
      expect(condition('Healthy/null')?.status).toBe('True');
    });

    monitor.apply([{ ...file, spec: { ...file.spec, deviceFile: { path: '/dev/null', type: 'DIRECTORY' } } }]);
    expect(monitor.ids).toEqual(['null']);
    expect(condition('Healthy/port')).toBeUndefined();
    expect(condition('Healthy/null')).toMatchObject({ status: 'Unknown', reason: 'Pending' });
    expect(condition('OSReady')).toMatchObject({ reason: 'Converged' });
    await eventually(() =>
      expect(condition('Healthy/null')).toMatchObject({
        status: 'False',
        reason: 'Failing',
        message: '/dev/null is character device, expected directory',
      }),
    );

    monitor.apply(undefined);
    expect(reporter.current.conditions?.map((c) => c.type)).toEqual(['OSReady']);
  });

  it('reports a check it cannot run as Unknown/Unsupported instead of refusing the others', async () => {
    const { reporter, condition } = reporterAndMessages();
    const monitor = monitorWith(reporter);
    monitor.apply([
      { id: 'future', name: 'projects/p/regions/r/healthChecks/future', spec: { type: 'QUIC', quic: {} } },
      applied('null', { type: 'DEVICE_FILE', deviceFile: { path: '/dev/null' } }),
    ]);
    expect(condition('Healthy/future')).toMatchObject({
      status: 'Unknown',
      reason: 'Unsupported',
      message: expect.stringContaining('spec.type'),
    });
    await eventually(() => expect(condition('Healthy/null')?.status).toBe('True'));
  });
});
