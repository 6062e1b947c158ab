/**
 * The device side of the fleet-connect benchmark: one process holding N agent links, each the real `AgentLink`
 * of the droplet agent (agent/src/link/agent-link.ts) with a tiny hello and either a fixed bearer credential or
 * a key pair, with which every connection signs the fresh challenge the server sends on it (the agent's own
 * linkCredentials, agent/src/identity/device-tokens.ts). With `ca`, the server is https/wss and the links
 * trust only that CA (the agent's --ca-file).
 *
 * Driven by its parent (scripts/bench/fleet-connect.ts) through JSON lines: commands on stdin, events on
 * stdout (`SimulatorCommand` / `SimulatorEvent` below); problems go to stderr.
 *   connect  starts one link per identity in `credentialsFile` (lib/simulated-identities.ts), at most
 *            `concurrency` of them waiting for their welcome at once and, with `perSecond`, starting no faster
 *            than that, and reports progress until every link is welcomed.
 *   report   sends `total` status messages round-robin over the links (device i's k-th message carries
 *            seq k and deviceInfo.hardwareInformation.memory.totalBytes = k * markerUnit, so the parent counts
 *            what was stored; usage is the server's own, from metrics),
 *            paced at `perSecond` when given, and never beyond the `allowance` the parent grants (flow control).
 *            With `kind: 'metrics'` the messages are the agent's metrics messages instead (lib/simulated-metrics.ts,
 *            timed now; the parent counts them in the metrics history).
 *   allow    raises the allowance (total messages that may have been sent so far).
 *   stop     closes every link and exits.
 *
 * Run by the parent as `node --import tsx scripts/bench/fleet-simulator.ts` (after `npm run build`).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { AgentLink } from '../../agent/src/link/agent-link.js';
import type { LinkCredential } from '../../agent/src/link/agent-link.js';
import { parseBenchFlags } from './lib/bench-flags.js';
import { openFileDescriptors } from './lib/process-stats.js';
import { metricsMessage } from './lib/simulated-metrics.js';
import { statusMessage } from './lib/simulated-status.js';
import { inMemoryDeviceKey, parseSimulatedIdentities } from './lib/simulated-identities.js';
import type { SimulatedIdentity } from './lib/simulated-identities.js';

export type SimulatorCommand =
  | {
      cmd: 'connect';
      server: string;
      credentialsFile: string;
      concurrency: number;
      /** links started per second at most (open loop, as a fleet's reconnect wave offers them); none: no pacing */
      perSecond?: number;
      ca?: string;
    }
  | {
      cmd: 'report';
      total: number;
      markerUnit: number;
      perSecond?: number;
      allowance?: number;
      /** what is sent: status messages (the default) or metrics messages */
      kind?: 'status' | 'metrics';
    }
  | { cmd: 'allow'; upTo: number }
  | { cmd: 'stop' };

export type SimulatorEvent =
  | { event: 'ready' }
  | { event: 'connecting'; started: number; welcomed: number; linkWarnings: number; fds?: number }
  | { event: 'connected'; links: number; ms: number; linkWarnings: number; fds?: number; rssBytes: number }
  | { event: 'sending'; sent: number; dropped: number }
  | { event: 'sent'; sent: number; dropped: number; ms: number }
  | { event: 'stopped' };

parseBenchFlags({
  script: 'fleet-simulator.ts',
  summary:
    'The device side of fleet-connect.ts and cluster.ts: N real agent links in one process, driven by its parent ' +
    'through JSON lines (commands on stdin, events on stdout). Not run by hand; it takes no flags.',
  flags: {},
});

const PROGRESS_EVERY_MS = 1_000;
const PACE_TICK_MS = 5;

interface Fleet {
  links: AgentLink[];
  /** status messages sent per link so far (the next seq is this + 1) */
  seqs: Uint32Array;
  /** metrics messages sent per link so far */
  metricsSeqs: Uint32Array;
}

const sleepMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const emit = (event: SimulatorEvent): void => void process.stdout.write(JSON.stringify(event) + '\n');

let fleet: Fleet | undefined;
let allowance = Number.POSITIVE_INFINITY;
let linkWarnings = 0;

// one silent logger for every link; a warning means a failed or lost connection, which the parent reports
const logger = pino(
  { level: 'warn', base: null },
  {
    write: (line: string) => {
      linkWarnings++;
      if (linkWarnings <= 5) process.stderr.write(`fleet-simulator: link warning: ${line}`);
    },
  },
);

// Each simulated device stands for a machine of its own: nothing sent through the default agents may share a
// kept-alive connection or resume another device's TLS session, or the server would be spared handshakes a real
// fleet costs it.
http.globalAgent = new http.Agent({ keepAlive: false });
https.globalAgent = new https.Agent({ keepAlive: false, maxCachedSessions: 0 });

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  const command = JSON.parse(line) as SimulatorCommand;
  handle(command).catch((err: unknown) => {
    process.stderr.write(`fleet-simulator: ${command.cmd} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
});
lines.on('close', () => process.exit(0)); // the parent went away
emit({ event: 'ready' });

async function handle(command: SimulatorCommand): Promise<void> {
  switch (command.cmd) {
    case 'connect':
      fleet = await connectAll(
        command.server,
        parseSimulatedIdentities(readFileSync(command.credentialsFile, 'utf8'), command.credentialsFile),
        command.concurrency,
        command.perSecond,
        command.ca,
      );
      return;
    case 'report':
      if (!fleet) throw new Error('report before connect');
      allowance = command.allowance ?? Number.POSITIVE_INFINITY;
      await sendReports(fleet, command);
      return;
    case 'allow':
      allowance = Math.max(allowance, command.upTo);
      return;
    case 'stop':
      if (fleet) await Promise.all(fleet.links.map((link) => link.stop()));
      emit({ event: 'stopped' });
      process.exit(0);
  }
}

/**
 * What the link authenticates each connection attempt with, as the agent's linkCredentials does: the bearer
 * credential, or the key, which signs the challenge the server sends on the link.
 */
function credentialOf(identity: SimulatedIdentity): () => Promise<LinkCredential> {
  if (typeof identity === 'string') return () => Promise.resolve(identity);
  const key = inMemoryDeviceKey(identity);
  return () => Promise.resolve({ deviceName: identity.device, key });
}

async function connectAll(
  server: string,
  identities: SimulatedIdentity[],
  concurrency: number,
  perSecond: number | undefined,
  ca: string | undefined,
): Promise<Fleet> {
  const started = performance.now();
  const links: AgentLink[] = [];
  let welcomed = 0;
  let wake = (): void => {};
  const progress = setInterval(
    () => emit({ event: 'connecting', started: links.length, welcomed, linkWarnings, fds: openFileDescriptors() }),
    PROGRESS_EVERY_MS,
  );

  for (const [i, identity] of identities.entries()) {
    while (links.length - welcomed >= concurrency) await new Promise<void>((resolve) => (wake = resolve));
    if (perSecond !== undefined) {
      const due = started + (i * 1000) / perSecond;
      if (performance.now() < due) await sleepMs(due - performance.now());
    }
    const link = new AgentLink({
      server,
      ...(ca === undefined ? {} : { security: { ca } }),
      credential: credentialOf(identity),
      hello: () => ({ agentVersion: 'fleet-simulator', bootId: `boot-${i}` }),
      logger,
    });
    const stopListening = link.onConnected(() => {
      stopListening(); // only the first welcome counts; reconnects are counted as warnings
      welcomed++;
      wake();
    });
    links.push(link);
    link.start();
  }
  while (welcomed < links.length) await new Promise<void>((resolve) => (wake = resolve));
  clearInterval(progress);
  emit({
    event: 'connected',
    links: links.length,
    ms: performance.now() - started,
    linkWarnings,
    fds: openFileDescriptors(),
    rssBytes: process.memoryUsage.rss(),
  });
  return { links, seqs: new Uint32Array(links.length), metricsSeqs: new Uint32Array(links.length) };
}

/** Sends `total` reports round-robin, paced and within the allowance; a link that is down drops its message. */
async function sendReports(
  target: Fleet,
  { total, perSecond, markerUnit, kind }: Extract<SimulatorCommand, { cmd: 'report' }>,
): Promise<void> {
  const messageOf =
    kind === 'metrics'
      ? (device: number, seq: number) => metricsMessage(device, seq, new Date())
      : (device: number, seq: number) => statusMessage(device, seq, markerUnit);
  const { links } = target;
  const seqs = kind === 'metrics' ? target.metricsSeqs : target.seqs;
  const started = performance.now();
  let sent = 0;
  let dropped = 0;
  let next = seqs.reduce((sum, s) => sum + s, 0) % links.length; // continue the round-robin where it stopped
  let lastProgress = started;
  while (sent < total) {
    const now = performance.now();
    const paced = perSecond === undefined ? total : Math.floor(((now - started) / 1000) * perSecond);
    const upTo = Math.min(total, paced, allowance);
    while (sent < upTo) {
      const seq = ++seqs[next]!;
      if (!links[next]!.send(messageOf(next, seq))) dropped++;
      sent++;
      next = (next + 1) % links.length;
    }
    if (now - lastProgress >= PROGRESS_EVERY_MS) {
      emit({ event: 'sending', sent, dropped });
      lastProgress = now;
    }
    // yield to the event loop: sockets flush, the parent's allowance arrives
    await new Promise<void>((resolve) => setTimeout(resolve, PACE_TICK_MS));
  }
  emit({ event: 'sent', sent, dropped, ms: performance.now() - started });
}
