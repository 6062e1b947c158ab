import { z } from 'zod';
import { deviceTime, message } from './bounds.js';

/** The parts of a device's configuration the agent applies (issue 18), each reported in `status.configuration`. */
export const CONFIGURATION_PARTS = ['network', 'ssh', 'proxy', 'logging'] as const;
export type ConfigurationPart = (typeof CONFIGURATION_PARTS)[number];

/** What configuration is in force: the spec's, the last known-good copy restored after a failure, or the factory's. */
export const CONFIGURATION_SOURCES = ['desired', 'known-good', 'factory'] as const;
export type ConfigurationSource = (typeof CONFIGURATION_SOURCES)[number];

/** The condition type each part reports alongside its status (e.g. `NetworkConfigured`). */
export const CONFIGURATION_CONDITION_TYPES = {
  network: 'NetworkConfigured',
  ssh: 'SshConfigured',
  proxy: 'ProxyConfigured',
  logging: 'LoggingConfigured',
} as const satisfies Record<ConfigurationPart, string>;

/** The device's generation is a JSON number: exact below 2^53. */
const generation = z.int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * The status of one configuration part. `desiredGeneration` is the device's metadata.generation of the spec in which
 * the part last changed; `appliedGeneration` is the desired generation now in force (absent when none was applied).
 */
export const configurationPartStatusSchema = z.object({
  desiredGeneration: generation,
  appliedGeneration: generation.optional(),
  source: z.enum(CONFIGURATION_SOURCES),
  lastError: message.optional(),
  updateTime: deviceTime,
});

/** `status.configuration`: each part present is replaced whole; parts absent are left as stored. */
export const configurationStatusSchema = z.object({
  network: configurationPartStatusSchema.optional(),
  ssh: configurationPartStatusSchema.optional(),
  proxy: configurationPartStatusSchema.optional(),
  logging: configurationPartStatusSchema.optional(),
});

export type ConfigurationPartStatus = z.infer<typeof configurationPartStatusSchema>;
export type ConfigurationStatus = z.infer<typeof configurationStatusSchema>;
