import type { ClientHttp2Session, IncomingHttpHeaders } from 'node:http2';
import { HEALTH_CHECK_METHOD, decodeHealthCheckResponse, encodeHealthCheckRequest } from '../grpc-health-codec.js';
import type { Probe, ProbeOutcome } from './probe.js';
import { errorText, healthy, missingMember, unhealthy } from './probe.js';

/** grpc-status codes the probe tells apart (the rest are reported by number). */
const GRPC_NOT_FOUND = 5;
const GRPC_UNIMPLEMENTED = 12;

/**
 * gRPC: grpc.health.v1.Health/Check answers SERVING for `service` (empty: the server as a whole). One unary
 * call over Node's own HTTP/2 (the gRPC wire format is a 5-byte length prefix per message and the status in
 * the trailers), so the agent does not load a gRPC library (grpc-js would cost every device ~6 MiB of
 * memory); the run's timeout goes along as grpc-timeout. A connection per run, closed after it.
 */
export const grpcProbe: Probe = async (spec, signal, timeoutMs) => {
  const grpc = spec.grpc;
  if (grpc === undefined) return missingMember(spec);
  const target = `${grpc.host.includes(':') ? `[${grpc.host}]` : grpc.host}:${grpc.port}`;
  const service = grpc.service ?? '';
  const what = `${target}${service === '' ? '' : ` service ${JSON.stringify(service)}`}`;
  const { connect } = await import('node:http2');
  const session = connect(`${grpc.tls ? 'https' : 'http'}://${target}`);
  try {
    return await new Promise<ProbeOutcome>((resolve) => {
      const fail = (err: unknown): void => resolve(unhealthy(`${what}: ${errorText(err)}`));
      session.on('error', fail);
      signal.addEventListener('abort', () => session.destroy(), { once: true });
      call(session, service, timeoutMs).then((answer) => {
        try {
          resolve(judge(answer, target, what));
        } catch (err) {
          fail(err);
        }
      }, fail);
    });
  } finally {
    session.destroy();
  }
};

function judge(answer: GrpcAnswer, target: string, what: string): ProbeOutcome {
  if (answer.grpcStatus === GRPC_UNIMPLEMENTED) return unhealthy(`${target} offers no grpc.health.v1 health service`);
  if (answer.grpcStatus === GRPC_NOT_FOUND) return unhealthy(`${what}: the health service does not know this service`);
  if (answer.grpcStatus !== 0) {
    return unhealthy(`${what}: grpc-status ${answer.grpcStatus}${answer.grpcMessage ? ` ${answer.grpcMessage}` : ''}`);
  }
  const { status } = decodeHealthCheckResponse(answer.message);
  return status === 'SERVING' ? healthy(`${what} is SERVING`) : unhealthy(`${what} is ${status}`);
}

interface GrpcAnswer {
  grpcStatus: number;
  grpcMessage: string;
  /** the response message without its length prefix */
  message: Buffer;
}

/** One unary call of Health/Check on an HTTP/2 session. */
function call(session: ClientHttp2Session, service: string, timeoutMs: number): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const body = encodeHealthCheckRequest({ service });
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1); // byte 0: not compressed
    body.copy(frame, 5);
    const request = session.request({
      ':method': 'POST',
      ':path': HEALTH_CHECK_METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${Math.max(1, Math.ceil(timeoutMs))}m`,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    request.on('response', (received) => (headers = received));
    request.on('trailers', (received) => (trailers = received));
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.once('end', () => {
      const httpStatus = Number(headers[':status']);
      // a "Trailers-Only" answer (errors) carries grpc-status in the headers
      const grpcStatus = trailers['grpc-status'] ?? headers['grpc-status'];
      if (grpcStatus === undefined) {
        reject(new Error(`not a gRPC answer (HTTP ${httpStatus}, no grpc-status)`));
        return;
      }
      const data = Buffer.concat(chunks);
      const length = data.length >= 5 ? data.readUInt32BE(1) : 0;
      resolve({
        grpcStatus: Number(grpcStatus),
        grpcMessage: percentDecoded(String(trailers['grpc-message'] ?? headers['grpc-message'] ?? '')),
        message: data.subarray(5, 5 + length),
      });
    });
    request.end(frame);
  });
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
