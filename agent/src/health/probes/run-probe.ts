import type { HealthCheckType } from '@outpost/shared';
import { commandProbe } from './command-probe.js';
import { deviceFileProbe } from './device-file-probe.js';
import { grpcProbe } from './grpc-probe.js';
import { httpProbe } from './http-probe.js';
import { icmpProbe } from './icmp-probe.js';
import type { Probe } from './probe.js';
import { tcpProbe } from './tcp-probe.js';

/** The probe of each check type. */
export const PROBES: Readonly<Record<HealthCheckType, Probe>> = {
  HTTP: httpProbe,
  TCP: tcpProbe,
  GRPC: grpcProbe,
  ICMP: icmpProbe,
  COMMAND: commandProbe,
  DEVICE_FILE: deviceFileProbe,
};

/** Runs the probe of the spec's type. */
export const runProbe: Probe = (spec, signal, timeoutMs) => PROBES[spec.type](spec, signal, timeoutMs);
