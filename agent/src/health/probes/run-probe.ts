import type { HealthCheckType } from '@outpost/shared';
import { AGENT_ITSELF } from '../../workloads/workload-user.js';
import type { WorkloadUser } from '../../workloads/workload-user.js';
import { commandProbe } from './command-probe.js';
import { deviceFileProbe } from './device-file-probe.js';
import { grpcProbe } from './grpc-probe.js';
import { httpProbe } from './http-probe.js';
import { icmpProbe } from './icmp-probe.js';
import type { Probe } from './probe.js';
import { tcpProbe } from './tcp-probe.js';

/** Runs the probe of the spec's type; COMMAND checks run as `user` decides. */
export function probesFor(user: WorkloadUser): Probe {
  const probes: Readonly<Record<HealthCheckType, Probe>> = {
    HTTP: httpProbe,
    TCP: tcpProbe,
    GRPC: grpcProbe,
    ICMP: icmpProbe,
    COMMAND: commandProbe(user),
    DEVICE_FILE: deviceFileProbe,
  };
  return (spec, signal, timeoutMs) => probes[spec.type](spec, signal, timeoutMs);
}

/** Runs the probe of the spec's type, COMMAND checks as the agent itself. */
export const runProbe: Probe = probesFor(AGENT_ITSELF);
