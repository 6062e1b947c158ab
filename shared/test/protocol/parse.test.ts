import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_TEXT_FRAME_BYTES,
  encodeMessage,
  parseAgentMessage,
  parseServerMessage,
  refusalOf,
} from '../../src/protocol/index.js';
import type { AgentMessage, ServerMessage } from '../../src/protocol/index.js';

const NOW = '2025-01-02T03:04:05.000Z';

const validAgentMessages: AgentMessage[] = [
  { type: 'hello', agentVersion: '0.1.0', bootId: 'b1', capabilities: ['status', 'metrics'] },
  {
    type: 'status',
    seq: 3,
    deviceInfo: {
      osVersion: '1.0.2',
      architecture: 'amd64',
      hardwareInformation: { system: { manufacturer: 'QEMU', serialNumber: 'x' }, disks: [{ name: 'vda' }] },
      networkInterfaces: { eth0: { interfaceName: 'eth0', ipAddressV4: ['10.0.0.2'], ipAddressV6: [], mac: 'aa' } },
      managedFeatures: { os: true, osUpgrade: true },
    },
    conditions: [{ type: 'OSReady', status: 'True', reason: 'Converged', message: '', lastTransitionTime: NOW }],
    addresses: [{ address: '10.0.0.2', type: 'InternalIP' }],
  },
  {
    type: 'metrics',
    time: NOW,
    cpu: { usagePercent: 12.5 },
    memory: { totalBytes: 1000, usedBytes: 400 },
    storage: [{ mount: '/', totalBytes: 10, usedBytes: 5 }],
    uptimeSeconds: 60,
    load1: 0.3,
  },
  { type: 'pong', nonce: 'n1' },
  { type: 'getSpec' },
  { type: 'result', id: 'c1', ok: true, data: { rebooting: true } },
  { type: 'result', id: 'c2', ok: false, error: { status: 'UNIMPLEMENTED', message: 'no such command' } },
  { type: 'error', refId: 'x', status: 'INVALID_ARGUMENT', message: 'bad' },
];

const validServerMessages: ServerMessage[] = [
  { type: 'welcome', deviceName: 'projects/p/regions/r/devices/d1', heartbeatSeconds: 15, serverTime: NOW },
  {
    type: 'spec',
    device: {
      name: 'projects/p/regions/r/devices/d1',
      spec: { osVersion: '1.0.3', sshConfig: { disableSshServer: true } },
      metadata: { generation: 4, labels: { wave: 'canary' } },
    },
  },
  { type: 'ping', nonce: 'n1' },
  { type: 'command', id: 'c1', command: 'reboot', args: { force: true } },
  { type: 'error', status: 'UNAUTHENTICATED', message: 'no' },
];

describe('parseAgentMessage', () => {
  it.each(validAgentMessages.map((m) => [m.type, m] as const))('accepts a valid %s message', (_type, message) => {
    expect(parseAgentMessage(encodeMessage(message))).toEqual({ ok: true, message });
  });

  it('refuses a server-only message type and names the known ones', () => {
    const result = parseAgentMessage('{"type":"welcome","id":"m7"}');
    expect(result).toMatchObject({ ok: false, refId: 'm7' });
    expect(!result.ok && result.error).toMatch(/unknown agent message type "welcome".*hello/);
  });

  it('refuses bad fields with their paths', () => {
    const result = parseAgentMessage(
      JSON.stringify({ type: 'status', seq: -1, conditions: [{ type: 'OSReady', status: 'Maybe' }] }),
    );
    expect(result.ok).toBe(false);
    const error = !result.ok ? result.error : '';
    expect(error).toMatch(/^invalid "status" message: /);
    expect(error).toContain('seq');
    expect(error).toContain('conditions[0].status');
  });

  it('refuses a failed result without an error', () => {
    expect(parseAgentMessage('{"type":"result","id":"c1","ok":false}')).toMatchObject({ ok: false, refId: 'c1' });
  });

  it('drops members it does not know (forward compatible)', () => {
    expect(parseAgentMessage('{"type":"pong","nonce":"a","later":1}')).toEqual({
      ok: true,
      message: { type: 'pong', nonce: 'a' },
    });
  });
});

describe('parseServerMessage', () => {
  it.each(validServerMessages.map((m) => [m.type, m] as const))('accepts a valid %s message', (_type, message) => {
    expect(parseServerMessage(encodeMessage(message))).toEqual({ ok: true, message });
  });

  it.each([
    ['non-JSON', '{"type":', /not JSON/],
    ['an array', '[1,2]', /JSON object/],
    ['null', 'null', /JSON object/],
    ['a missing type', '{"nonce":"a"}', /string "type"/],
    ['a numeric type', '{"type":1}', /string "type"/],
    ['an unknown type', '{"type":"teleport"}', /unknown server message type "teleport"/],
    [
      'a non-positive heartbeat',
      `{"type":"welcome","deviceName":"d","heartbeatSeconds":0,"serverTime":"${NOW}"}`,
      /heartbeatSeconds/,
    ],
    ['a bad time', '{"type":"welcome","deviceName":"d","heartbeatSeconds":5,"serverTime":"yesterday"}', /serverTime/],
    ['a command without id', '{"type":"command","command":"reboot"}', /id/],
    [
      'a spec without generation',
      '{"type":"spec","device":{"name":"d","spec":{},"metadata":{}}}',
      /device\.metadata\.generation/,
    ],
    ['an error with an unknown status', '{"type":"error","status":"OOPS","message":"m"}', /status/],
  ])('refuses %s with a clear error', (_what, text, error) => {
    const result = parseServerMessage(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(error);
  });

  it('refuses a frame over 1 MiB without parsing it, counting UTF-8 bytes', () => {
    const padding = 'é'.repeat(MAX_TEXT_FRAME_BYTES / 2); // 2 bytes each: just over the limit with the envelope
    const result = parseServerMessage(JSON.stringify({ type: 'ping', nonce: padding }));
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/too large/) });

    const fits = 'a'.repeat(MAX_TEXT_FRAME_BYTES - 100);
    expect(parseServerMessage(JSON.stringify({ type: 'ping', nonce: fits })).ok).toBe(true);
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const a = parseServerMessage(text);
          const b = parseAgentMessage(text);
          expect(typeof a.ok).toBe('boolean');
          expect(typeof b.ok).toBe('boolean');
        },
      ),
    );
  });
});

describe('refusalOf', () => {
  it('builds the error reply, carrying the refused id', () => {
    expect(refusalOf({ error: 'bad', refId: 'm1' })).toEqual({
      type: 'error',
      status: 'INVALID_ARGUMENT',
      message: 'bad',
      refId: 'm1',
    });
    const reply = refusalOf({ error: 'bad' });
    expect(parseServerMessage(JSON.stringify(reply))).toEqual({ ok: true, message: reply });
  });
});
