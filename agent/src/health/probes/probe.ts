import type { ProbeSpec } from '@outpost/shared';

/** One result of a health check run. */
export interface ProbeOutcome {
  healthy: boolean;
  /** what was seen, for the condition's message */
  message: string;
}

/**
 * Runs one probe. `signal` aborts when the run's timeout passes (the monitor then counts a Timeout); a probe
 * must release what it holds (sockets, processes) when it does. `timeoutMs` is for probes that pass a
 * deadline on (ping, gRPC).
 */
export type Probe = (spec: ProbeSpec, signal: AbortSignal, timeoutMs: number) => Promise<ProbeOutcome>;

export const healthy = (message: string): ProbeOutcome => ({ healthy: true, message });
export const unhealthy = (message: string): ProbeOutcome => ({ healthy: false, message });

/** A spec whose type member is missing (the schema refuses those; this keeps the probes total). */
export const missingMember = (spec: ProbeSpec): ProbeOutcome => unhealthy(`the ${spec.type} check has no settings`);

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
