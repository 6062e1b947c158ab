/**
 * The simulated fleet (issue 17): thousands of simulated devices in one process, each running the droplet's real
 * agent link and its real OS upgrade planner and executor over an in-memory A/B boot backend
 * (agent/src/os/boot/memory-backend.ts), with simulated download and reboot times. `scripts/sim-fleet.ts` is its
 * command line; rollout tests and the rollout benchmark use it as a library.
 *
 * Every device reports `status.deviceInfo.deviceType` (its spec's), the version of its committed slot, OSReady
 * and a health condition `Healthy/sim` (True/Passing normally). The download fetches nothing: it takes
 * `downloadMs` and the image counts as verified, so the versions written must be published for the device type
 * on the server (the server refuses the write otherwise, and sends the agent the image record it checks).
 */
import { pino } from 'pino';
import { ConnectGate } from './connect-gate.js';
import { SimDevice } from './sim-device.js';
import { simulatedDownload } from './simulated-download.js';

export interface SimDeviceSpec {
  /** projects/{p}/regions/{r}/devices/{d}, already created on the server */
  name: string;
  /** its device credential (from :issueCredential or :provision) */
  credential: string;
  /** e.g. 'simulated' */
  deviceType: string;
  /** the OS version it runs at start, e.g. '1.0.0' */
  factoryVersion: string;
  /** the new slot never boots: the bootloader falls back and the agent reports OSReady False/RolledBack */
  failBoot?: boolean;
  /** once the new version is committed, the health check `sim` turns False/Failing (shortly after) */
  failHealthAfterUpgrade?: boolean;
  /** powered off: does not connect until setOnline(name, true) */
  offline?: boolean;
}

export interface SimFleetOptions {
  serverUrl: string;
  devices: SimDeviceSpec[];
  /** simulated download time per upgrade (default 1000) */
  downloadMs?: number;
  /** simulated reboot time (default 2000) */
  rebootMs?: number;
  /** the agents' warnings and errors (lost links, failed steps), one line each */
  log?: (line: string) => void;
}

export interface SimFleet {
  /** the version each device runs now (while it is offline: the one it boots next) */
  runningVersion(name: string): string | undefined;
  /** powers a device on (it boots and connects) or off (it drops its link at once) */
  setOnline(name: string, online: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** At most this many devices wait for their welcome at once (the server's accept backlog is 511). */
const CONNECTING_AT_ONCE = 256;
/** a device that got no welcome within this long lets the next one try anyway */
const CONNECT_HOLD_MS = 5_000;

/** Starts every device that is not offline; resolves once each has begun connecting. */
export async function startSimFleet(options: SimFleetOptions): Promise<SimFleet> {
  const log = options.log;
  const logger = pino(
    { level: log === undefined ? 'silent' : 'warn', base: null },
    { write: (line: string) => log?.(line.trimEnd()) },
  );
  const context = {
    server: options.serverUrl,
    rebootMs: options.rebootMs ?? 2_000,
    fetchImage: simulatedDownload(options.downloadMs ?? 1_000),
    gate: new ConnectGate(CONNECTING_AT_ONCE, CONNECT_HOLD_MS),
    logger,
    onError: (message: string) => log?.(`sim-fleet: ${message}`),
  };
  const devices = new Map<string, SimDevice>();
  for (const spec of options.devices) {
    if (devices.has(spec.name)) throw new Error(`device ${spec.name} is listed twice`);
    devices.set(spec.name, new SimDevice(spec, context));
  }
  await Promise.all([...devices.values()].map((device) => device.start()));

  const device = (name: string): SimDevice => {
    const found = devices.get(name);
    if (found === undefined) throw new Error(`no simulated device ${name}`);
    return found;
  };
  return {
    runningVersion: (name) => devices.get(name)?.runningVersion,
    setOnline: (name, online) => device(name).setOnline(online),
    stop: async () => {
      await Promise.all([...devices.values()].map((d) => d.stop()));
    },
  };
}
