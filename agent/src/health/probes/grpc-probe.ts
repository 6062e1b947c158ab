import type { ServiceError } from '@grpc/grpc-js';
import { HEALTH_CHECK_METHOD, decodeHealthCheckResponse, encodeHealthCheckRequest } from '../grpc-health-codec.js';
import type { HealthCheckResponse } from '../grpc-health-codec.js';
import type { Probe } from './probe.js';
import { errorText, healthy, missingMember, unhealthy } from './probe.js';

/**
 * gRPC: grpc.health.v1.Health/Check answers SERVING for `service` (empty: the server as a whole), within the
 * run's timeout as the call's deadline. A channel per run, closed after it.
 */
export const grpcProbe: Probe = async (spec, signal, timeoutMs) => {
  const grpcSpec = spec.grpc;
  if (grpcSpec === undefined) return missingMember(spec);
  // loaded on the first gRPC check only (the module cache keeps it): most devices never pay for grpc-js
  const grpc = await import('@grpc/grpc-js');
  const target = `${grpcSpec.host.includes(':') ? `[${grpcSpec.host}]` : grpcSpec.host}:${grpcSpec.port}`;
  const service = grpcSpec.service ?? '';
  const what = `${target}${service === '' ? '' : ` service ${JSON.stringify(service)}`}`;
  const credentials = grpcSpec.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const client = new grpc.Client(target, credentials);
  try {
    const response = await new Promise<HealthCheckResponse>((resolve, reject) => {
      const call = client.makeUnaryRequest(
        HEALTH_CHECK_METHOD,
        encodeHealthCheckRequest,
        decodeHealthCheckResponse,
        { service },
        new grpc.Metadata(),
        { deadline: new Date(Date.now() + timeoutMs) },
        (err: ServiceError | null, value?: HealthCheckResponse) => {
          if (err !== null) reject(err);
          else resolve(value ?? { status: 'UNKNOWN' });
        },
      );
      signal.addEventListener('abort', () => call.cancel(), { once: true });
    });
    return response.status === 'SERVING' ? healthy(`${what} is SERVING`) : unhealthy(`${what} is ${response.status}`);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === grpc.status.UNIMPLEMENTED) return unhealthy(`${target} offers no grpc.health.v1 health service`);
    if (code === grpc.status.NOT_FOUND) return unhealthy(`${what}: the health service does not know this service`);
    return unhealthy(`${what}: ${(err as { details?: unknown }).details ?? errorText(err)}`);
  } finally {
    client.close();
  }
};
