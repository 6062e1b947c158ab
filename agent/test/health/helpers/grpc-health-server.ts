import * as grpc from '@grpc/grpc-js';
import {
  HEALTH_CHECK_METHOD,
  decodeHealthCheckRequest,
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  encodeHealthCheckResponse,
} from '../../../src/health/grpc-health-codec.js';
import type { HealthCheckRequest, HealthCheckResponse, ServingStatus } from '../../../src/health/grpc-health-codec.js';

/** grpc.health.v1.Health as a hand-written service definition (no .proto file, no network). */
const healthService: grpc.ServiceDefinition = {
  Check: {
    path: HEALTH_CHECK_METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeHealthCheckRequest,
    requestDeserialize: decodeHealthCheckRequest,
    responseSerialize: encodeHealthCheckResponse,
    responseDeserialize: decodeHealthCheckResponse,
  },
};

export interface GrpcHealthServer {
  port: number;
  /** the status answered per service name ('' = the server); services not listed answer NOT_FOUND */
  statuses: Map<string, ServingStatus>;
  /** requests received, in order */
  requests: HealthCheckRequest[];
  close(): Promise<void>;
}

/** A real gRPC server on 127.0.0.1 with the standard health service, or (health: false) without it. */
export async function startGrpcHealthServer(options: { health?: boolean } = {}): Promise<GrpcHealthServer> {
  const server = new grpc.Server();
  const statuses = new Map<string, ServingStatus>([['', 'SERVING']]);
  const requests: HealthCheckRequest[] = [];
  if (options.health ?? true) {
    server.addService(healthService, {
      Check: (
        call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
        callback: grpc.sendUnaryData<HealthCheckResponse>,
      ) => {
        requests.push(call.request);
        const status = statuses.get(call.request.service);
        if (status === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' }, null);
        else callback(null, { status });
      },
    });
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    port,
    statuses,
    requests,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
