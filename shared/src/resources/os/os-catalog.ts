import { z } from 'zod';
import { ID_RULES, NamePattern } from '../../names/index.js';
import type { ResourceDefinition } from '../definition.js';
import { META_FILTER_FIELDS, MetaSchema } from '../meta.js';

export const ARCHITECTURES = ['ARCHITECTURE_UNSPECIFIED', 'AMD64', 'ARM64'] as const;
export const CHANNELS = ['CHANNEL_UNSPECIFIED', 'NORMAL', 'BETA'] as const;

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;
export const semverString = z.string().regex(SEMVER, 'must be a semantic version like 1.2.0');

/** A kind of hardware OS images are built for (`deviceTypes/{id}`). */
export const DeviceTypeSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  displayName: z.string().max(256).optional(),
  description: z.string().max(4096).optional(),
  architecture: z.enum(ARCHITECTURES).optional(),
  /** e.g. GENERIC, RASPBERRYPI, QEMU */
  hardware: z.string().max(64).optional(),
});
export type DeviceType = z.infer<typeof DeviceTypeSchema>;

export const DEVICE_TYPE_PATTERN = new NamePattern('deviceTypes/{deviceType}', { deviceType: ID_RULES.generic });

export const deviceTypeDefinition: ResourceDefinition<DeviceType> = {
  kind: 'DeviceType',
  singular: 'deviceType',
  plural: 'deviceTypes',
  service: 'devices.outpost',
  patterns: [DEVICE_TYPE_PATTERN],
  idRule: ID_RULES.generic,
  schema: DeviceTypeSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'displayName', type: 'string' },
      { path: 'architecture', type: 'enum', enumValues: ARCHITECTURES },
      { path: 'hardware', type: 'string' },
    ],
  },
  outputOnly: [],
  views: { BASIC: ['displayName', 'architecture', 'hardware'] },
};

/** One published OS version for one device type (`osVersions/{id}`), with its signed artifact. */
export const OsVersionSchema = z.object({
  name: z.string(),
  metadata: MetaSchema.optional(),
  version: semverString,
  /** deviceTypes/{id} */
  deviceType: z.string().regex(/^deviceTypes\/[a-zA-Z0-9_.-]{1,128}$/, 'must be deviceTypes/{id}'),
  /** devices must run at least this version to move to this one */
  minimumPreviousVersion: semverString.optional(),
  channel: z.enum(CHANNELS).optional(),
  artifact: z.object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256'),
    size: z.number().int().positive(),
    /** where devices download it: /v1/artifacts/{sha256} */
    url: z.string().optional(),
  }),
  /** base64 ed25519 signature over the 32 raw bytes of the artifact's SHA-256 digest */
  signature: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, 'must be a base64 ed25519 signature (64 bytes)'),
  releaseNotes: z.string().max(65536).optional(),
});
export type OsVersion = z.infer<typeof OsVersionSchema>;

export const OS_VERSION_PATTERN = new NamePattern('osVersions/{osVersion}', { osVersion: ID_RULES.generic });

export const osVersionDefinition: ResourceDefinition<OsVersion> = {
  kind: 'OsVersion',
  singular: 'osVersion',
  plural: 'osVersions',
  service: 'devices.outpost',
  patterns: [OS_VERSION_PATTERN],
  idRule: ID_RULES.generic,
  schema: OsVersionSchema,
  filterSchema: {
    fields: [
      ...META_FILTER_FIELDS,
      { path: 'version', type: 'string' },
      { path: 'deviceType', type: 'name' },
      { path: 'minimumPreviousVersion', type: 'string' },
      { path: 'channel', type: 'enum', enumValues: CHANNELS },
      { path: 'artifact.sha256', type: 'string' },
    ],
  },
  outputOnly: ['artifact.url'],
  immutable: ['version', 'deviceType', 'artifact', 'signature'],
  views: { BASIC: ['version', 'deviceType', 'channel', 'minimumPreviousVersion'] },
};

/** The id an OS version is published under: `<device type id>-<version>`. */
export const osVersionId = (deviceTypeId: string, version: string): string => `${deviceTypeId}-${version}`;
