/**
 * The two messages of the standard gRPC health service (grpc.health.v1, health.proto), encoded by hand so
 * the agent needs no .proto file or code generator:
 *
 *   message HealthCheckRequest  { string service = 1; }
 *   message HealthCheckResponse { ServingStatus status = 1; }
 *   enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
 */
export const HEALTH_CHECK_METHOD = '/grpc.health.v1.Health/Check';

export const SERVING_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
export type ServingStatus = (typeof SERVING_STATUSES)[number];

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: ServingStatus;
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

export function encodeHealthCheckRequest(request: HealthCheckRequest): Buffer {
  const service = Buffer.from(request.service, 'utf8');
  if (service.length === 0) return Buffer.alloc(0); // proto3 leaves default values out
  return Buffer.concat([Buffer.from([(1 << 3) | WIRE_LENGTH_DELIMITED]), encodeVarint(service.length), service]);
}

export function decodeHealthCheckRequest(bytes: Buffer): HealthCheckRequest {
  let service = '';
  forEachField(bytes, (field, wireType, value) => {
    if (field === 1 && wireType === WIRE_LENGTH_DELIMITED && Buffer.isBuffer(value)) service = value.toString('utf8');
  });
  return { service };
}

export function encodeHealthCheckResponse(response: HealthCheckResponse): Buffer {
  const status = SERVING_STATUSES.indexOf(response.status);
  if (status <= 0) return Buffer.alloc(0);
  return Buffer.concat([Buffer.from([(1 << 3) | WIRE_VARINT]), encodeVarint(status)]);
}

export function decodeHealthCheckResponse(bytes: Buffer): HealthCheckResponse {
  let status: ServingStatus = 'UNKNOWN';
  forEachField(bytes, (field, wireType, value) => {
    if (field === 1 && wireType === WIRE_VARINT && typeof value === 'number') {
      status = SERVING_STATUSES[value] ?? 'UNKNOWN';
    }
  });
  return { status };
}

function encodeVarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** Walks the fields of a message; unknown fields are skipped, as protobuf requires. Throws on malformed input. */
function forEachField(bytes: Buffer, visit: (field: number, wireType: number, value: number | Buffer) => void): void {
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[offset++];
      if (byte === undefined) throw new Error('truncated protobuf varint');
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
      if (scale > 2 ** 63) throw new Error('protobuf varint too long');
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wireType = key & 7;
    if (wireType === WIRE_VARINT) visit(field, wireType, varint());
    else if (wireType === WIRE_LENGTH_DELIMITED) {
      const length = varint();
      if (offset + length > bytes.length) throw new Error('truncated protobuf field');
      visit(field, wireType, bytes.subarray(offset, offset + length));
      offset += length;
    } else if (wireType === WIRE_FIXED64) offset += 8;
    else if (wireType === WIRE_FIXED32) offset += 4;
    else throw new Error(`unsupported protobuf wire type ${wireType}`);
  }
}
