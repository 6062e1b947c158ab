import { describe, expect, it } from 'vitest';
import {
  decodeHealthCheckRequest,
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  encodeHealthCheckResponse,
} from '../../src/health/grpc-health-codec.js';

describe('grpc.health.v1 messages, encoded by hand', () => {
  it('encodes as protobuf does (field 1: string service; field 1: enum status; defaults left out)', () => {
    expect(encodeHealthCheckRequest({ service: '' })).toEqual(Buffer.alloc(0));
    expect(encodeHealthCheckRequest({ service: 'db' }).toString('hex')).toBe('0a026462');
    expect(encodeHealthCheckResponse({ status: 'SERVING' }).toString('hex')).toBe('0801');
    expect(encodeHealthCheckResponse({ status: 'NOT_SERVING' }).toString('hex')).toBe('0802');
    expect(encodeHealthCheckResponse({ status: 'UNKNOWN' })).toEqual(Buffer.alloc(0));
    const long = 'x'.repeat(300);
    expect(encodeHealthCheckRequest({ service: long }).subarray(0, 3).toString('hex')).toBe('0aac02');
  });

  it('decodes, skipping unknown fields, and round-trips', () => {
    // field 2 (varint 150), field 3 (bytes "hi"), field 4 (fixed32), then status = SERVICE_UNKNOWN
    const withUnknown = Buffer.from('1096011a026869250000000008 03'.replace(/ /g, ''), 'hex');
    expect(decodeHealthCheckResponse(withUnknown)).toEqual({ status: 'SERVICE_UNKNOWN' });
    expect(decodeHealthCheckResponse(Buffer.alloc(0))).toEqual({ status: 'UNKNOWN' });
    for (const service of ['', 'a', 'grpc.health.v1.Health', 'ü'.repeat(200)]) {
      expect(decodeHealthCheckRequest(encodeHealthCheckRequest({ service }))).toEqual({ service });
    }
    expect(() => decodeHealthCheckRequest(Buffer.from('0a05ab', 'hex'))).toThrow(/truncated/);
  });
});
