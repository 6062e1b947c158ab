import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';

export const REMOTE_SESSION_KINDS = ['TERMINAL', 'PORT_FORWARD'] as const;
export const REMOTE_SESSION_STATES = ['ACTIVE', 'ENDED'] as const;
/** how a session ended: the command exited, the client or the device went away, or it failed */
export const REMOTE_SESSION_ENDINGS = ['EXITED', 'CLIENT_CLOSED', 'DEVICE_CLOSED', 'FAILED'] as const;

/**
 * The audit record of one remote terminal or port-forward connection (issue 21), written by the control plane
 * only: who opened it (the API key), on which device, when and for how long, what ran, the bytes each way and
 * how it ended.
 */
export const RemoteSessionSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  kind: z.enum(REMOTE_SESSION_KINDS).optional(),
  /** the API key that opened the session */
  keyId: z.string().optional(),
  device: z.string().optional(),
  /** the command line, or "interactive" for a login shell */
  command: z.string().optional(),
  /** host:port a port forward connected to */
  target: z.string().optional(),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
  durationSeconds: z.number().optional(),
  /** bytes the client sent to the device, and the device back */
  bytesIn: z.int().min(0).optional(),
  bytesOut: z.int().min(0).optional(),
  state: z.enum(REMOTE_SESSION_STATES).optional(),
  ending: z.enum(REMOTE_SESSION_ENDINGS).optional(),
  exitCode: z.int().optional(),
  error: z.string().optional(),
  /** what the session showed (its output as UTF-8), when the device's spec.remoteAccess.recordTranscripts asks */
  transcript: z.string().optional(),
  /** true: the transcript holds only the first MAX_TRANSCRIPT_BYTES of the output */
  transcriptTruncated: z.boolean().optional(),
});

/** The most output a transcript keeps. */
export const MAX_TRANSCRIPT_BYTES = 1024 * 1024;
export type RemoteSession = z.infer<typeof RemoteSessionSchema>;

export const REMOTE_SESSION_PATTERN = new NamePattern(
  'projects/{project}/regions/{region}/devices/{device}/remoteSessions/{remoteSession}',
  {
    project: ID_RULES.device,
    region: ID_RULES.device,
    device: ID_RULES.device,
    remoteSession: ID_RULES.generic,
  },
);

const FIELDS = [
  'kind',
  'keyId',
  'device',
  'command',
  'target',
  'startTime',
  'endTime',
  'durationSeconds',
  'bytesIn',
  'bytesOut',
  'state',
  'ending',
  'exitCode',
  'error',
  'transcript',
  'transcriptTruncated',
] as const;

export const remoteSessionDefinition: ResourceDefinition<RemoteSession> = {
  kind: 'RemoteSession',
  singular: 'remoteSession',
  plural: 'remoteSessions',
  service: 'devices.outpost',
  patterns: [REMOTE_SESSION_PATTERN],
  idRule: ID_RULES.generic,
  schema: RemoteSessionSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'kind', type: 'enum', enumValues: REMOTE_SESSION_KINDS },
      { path: 'keyId', type: 'string' },
      { path: 'device', type: 'name' },
      { path: 'state', type: 'enum', enumValues: REMOTE_SESSION_STATES },
      { path: 'ending', type: 'enum', enumValues: REMOTE_SESSION_ENDINGS },
      { path: 'startTime', type: 'timestamp' },
    ],
  },
  outputOnly: FIELDS,
  without: ['create', 'update', 'delete'],
  views: { BASIC: ['kind', 'keyId', 'command', 'target', 'startTime', 'durationSeconds', 'state', 'ending'] },
};
