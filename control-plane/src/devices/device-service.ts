import {
  alreadyExists,
  deviceDefinition,
  invalidArgument,
  notFound,
  permissionDenied,
  permissionOf,
  registerDeviceRequestSchema,
  unauthenticated,
} from '@outpost/shared';
import type { Device } from '@outpost/shared';
import type { Metering } from '../limits/metering.js';
import { isDocument } from '../resources/doc-utils.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { ResourceRules } from '../resources/resource-rules.js';
import type { Doc } from '../resources/resource-table.js';
import type { CustomMethod } from '../resources/http/custom-method.js';
import { deviceConfigRules } from './device-config-rules.js';
import { deviceCountsMethod } from './device-counts-method.js';
import { deviceMeter } from './device-metering.js';
import { DeviceCredentials } from './device-credentials.js';
import { parseDevicePublicKey } from './device-identity.js';
import { provisionRequestSchema, withProvisionedFacts } from './provisioned-facts.js';
import { provisioningTokenMethods } from './provisioning-token-methods.js';
import { ProvisioningTokens } from './provisioning-tokens.js';

export const PROVISION_PERMISSION = permissionOf(deviceDefinition, 'provision');

export interface DeviceService {
  devices: ResourceHandle<Device>;
  credentials: DeviceCredentials;
  tokens: ProvisioningTokens;
  customMethods: CustomMethod[];
}

export interface DeviceServiceOptions {
  /** more rules from other services (e.g. the OS catalog), run after the devices service's own */
  extraRules?: ResourceRules<Device>[];
  /** the limits service: devices register as metered (a device takes one from its project's devices Limit) */
  meteredBy?: Metering;
}

/** The devices API of spec 000: the Device resource, its credentials and self-registration. */
export function createDeviceService(engine: ResourceEngine, options: DeviceServiceOptions = {}): DeviceService {
  const credentials = new DeviceCredentials(engine.stores.deviceCredentials, engine.now, (fn) =>
    engine.afterCommit(fn),
  );
  const tokens = new ProvisioningTokens(engine.stores.provisioningTokens, engine.now);
  const own: ResourceRules<Device> = {
    beforeCreate: (doc) => ({
      ...doc,
      status: { ...doc.status, connectionStatus: 'DISCONNECTED', connectionStatusChangeTime: doc.metadata?.createTime },
    }),
    afterDelete: (doc) => {
      credentials.revoke(doc.name);
    },
  };
  const metered = options.meteredBy?.meter(deviceMeter(() => devices));
  const devices: ResourceHandle<Device> = engine.register(
    deviceDefinition,
    combineRules<Device>([own, deviceConfigRules, ...(options.extraRules ?? []), ...(metered ? [metered] : [])]),
    // a status flush rewrites up to 1,000 devices in one transaction: on PostgreSQL each keeps room for its new
    // version on its page, so the flush writes no index entry (the cluster's flushes run one at a time)
    { rewrittenTogether: true },
  );

  const existing = (name: string): Device => {
    const doc = devices.find(name);
    if (!doc) throw notFound(`device "${name}" not found`);
    return doc;
  };

  const customMethods: CustomMethod[] = [
    {
      plural: 'devices',
      verb: 'issueCredential',
      scope: 'resource',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      handle: ({ target, body }) => {
        const { publicKey } = withPublicKey(body);
        existing(target);
        // re-keying: the device's new public key replaces its credential or key; no secret to hand back
        if (publicKey !== undefined) {
          credentials.setPublicKey(target, publicKey);
          return { name: target };
        }
        return { name: target, credential: credentials.issue(target) };
      },
    },
    {
      plural: 'devices',
      verb: 'provision',
      scope: 'resource',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      handle: ({ target, body }) => {
        const { publicKey, rest } = withPublicKey(body);
        const parsed = provisionRequestSchema.safeParse(rest);
        if (!parsed.success) throw invalidArgument(`invalid provisioning: ${describeIssues(parsed.error.issues)}`);
        const { deviceType, factoryVersion } = parsed.data;
        return engine.transaction(() => {
          existing(target);
          devices.patch(target, (doc) => withProvisionedFacts(doc, { deviceType, osVersion: factoryVersion }));
          if (publicKey === undefined) return { name: target, credential: credentials.issue(target) };
          credentials.setPublicKey(target, publicKey);
          return { name: target };
        });
      },
    },
    {
      plural: 'devices',
      verb: 'revokeCredential',
      scope: 'resource',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      handle: ({ target }) => {
        existing(target);
        credentials.revoke(target);
        return {};
      },
    },
    {
      plural: 'devices',
      verb: 'challenge',
      scope: 'resource',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      // asked before the device can authenticate: the challenge is worth nothing without the device's private key
      public: true,
      handle: ({ target }) => {
        if (!credentials.hasPublicKey(target) || !devices.exists(target)) {
          throw notFound(`device "${target}" has no key pair registered`);
        }
        return credentials.challenge(target);
      },
    },
    {
      plural: 'devices',
      verb: 'enrollKey',
      scope: 'resource',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      public: true,
      handle: ({ target, authorization, body }) => {
        const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
        if (!secret) throw unauthenticated('enrolling a key needs "Authorization: Bearer <device credential>"');
        if (credentials.deviceOf(secret) !== target || !devices.exists(target)) {
          throw unauthenticated(`invalid or revoked credential of device "${target}"`);
        }
        const { publicKey } = withPublicKey(body);
        if (publicKey === undefined) throw invalidArgument('enrolling a key needs publicKey');
        // the bearer credential that authenticated this call stops working with it
        credentials.setPublicKey(target, publicKey);
        return { name: target };
      },
    },
    ...provisioningTokenMethods(devices, tokens),
    deviceCountsMethod(devices),
    {
      plural: 'devices',
      verb: 'register',
      scope: 'collection',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      public: true,
      handle: ({ target, body, authorization }) => {
        const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
        if (!token) throw unauthenticated('registration needs "Authorization: Bearer <provisioning token>"');
        const granted = tokens.verify(token);
        if (granted === 'used up') throw unauthenticated('this provisioning token has registered all it may');
        if (granted === 'unknown or expired') throw unauthenticated('invalid or expired provisioning token');
        if (granted.parent !== target) {
          throw permissionDenied(`this provisioning token registers devices in ${granted.parent}, not ${target}`);
        }
        const parsed = registerDeviceRequestSchema.safeParse(body);
        if (!parsed.success) throw invalidArgument(`invalid registration: ${describeIssues(parsed.error.issues)}`);
        const publicKey = parsed.data.publicKey === undefined ? undefined : parseDevicePublicKey(parsed.data.publicKey);
        const name = `${target}/devices/${parsed.data.deviceId}`;
        return engine.transaction(() => {
          if (devices.find(name))
            throw alreadyExists(`device "${name}" already exists; ask an administrator for its credential`);
          // counted in this transaction: a registration that fails uses nothing up
          if (!tokens.consume(token)) throw unauthenticated('this provisioning token has registered all it may');
          devices.create({ parent: target, resource: { name } }, { system: true });
          // what it says it is and runs, so that spec.osVersion writes are checked before its first report
          const info = parsed.data.deviceInfo;
          const device = devices.patch(name, (doc) =>
            withProvisionedFacts(doc, { deviceType: info?.deviceType, osVersion: info?.osVersion }),
          );
          if (publicKey === undefined) return { device, credential: credentials.issue(name) };
          credentials.setPublicKey(name, publicKey);
          return { device };
        });
      },
    },
  ];
  return { devices, credentials, tokens, customMethods };
}

/** A body's `publicKey` (checked: an ed25519 SPKI PEM) and the rest of it. */
function withPublicKey(body: unknown): { publicKey?: string; rest: unknown } {
  if (!isDocument(body) || !('publicKey' in body)) return { rest: body ?? {} };
  const { publicKey, ...rest } = body;
  return { publicKey: parseDevicePublicKey(publicKey), rest };
}

const describeIssues = (issues: readonly { path: PropertyKey[]; message: string }[]): string =>
  issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`).join('; ');

/** Runs several services' rules for one resource in order; a replacement document flows on to the next. */
export function combineRules<T extends Doc>(list: readonly ResourceRules<T>[]): ResourceRules<T> {
  return {
    beforeCreate: (doc, ctx) => list.reduce((d, r) => r.beforeCreate?.(d, ctx) ?? d, doc),
    beforeUpdate: (before, after, ctx) => list.reduce((d, r) => r.beforeUpdate?.(before, d, ctx) ?? d, after),
    beforeDelete: (doc, ctx) => list.forEach((r) => r.beforeDelete?.(doc, ctx)),
    afterCreate: (doc, ctx) => list.forEach((r) => r.afterCreate?.(doc, ctx)),
    afterUpdate: (before, after, ctx) => list.forEach((r) => r.afterUpdate?.(before, after, ctx)),
    afterDelete: (doc, ctx) => list.forEach((r) => r.afterDelete?.(doc, ctx)),
  };
}
