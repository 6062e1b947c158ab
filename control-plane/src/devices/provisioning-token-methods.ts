import { deviceDefinition, invalidArgument, notFound, permissionOf } from '@outpost/shared';
import type { Device } from '@outpost/shared';
import { isDocument } from '../resources/doc-utils.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ProvisioningTokens } from './provisioning-tokens.js';

const PROVISION_PERMISSION = permissionOf(deviceDefinition, 'provision');
const DEFAULT_TOKEN_TTL_SECONDS = 24 * 3600;
const MAX_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const MAX_USES_LIMIT = 1_000_000;
const TOKEN_ID = /^[0-9a-f]{16}$/;

/**
 * `{parent}/devices:createProvisioningToken`, `:listProvisioningTokens` and `:revokeProvisioningToken`: the
 * tokens new devices of a region register themselves with.
 */
export function provisioningTokenMethods(devices: ResourceHandle<Device>, tokens: ProvisioningTokens): CustomMethod[] {
  return [
    {
      plural: 'devices',
      verb: 'createProvisioningToken',
      scope: 'collection',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      handle: ({ target, body }) => {
        devices.patternOfParent(target, false);
        const request = objectBody(body);
        const ttl = request['ttlSeconds'] ?? DEFAULT_TOKEN_TTL_SECONDS;
        if (!isIntegerIn(ttl, 60, MAX_TOKEN_TTL_SECONDS)) {
          throw invalidArgument(`ttlSeconds must be an integer from 60 to ${MAX_TOKEN_TTL_SECONDS}`);
        }
        const maxUses = request['maxUses'];
        if (maxUses !== undefined && !isIntegerIn(maxUses, 1, MAX_USES_LIMIT)) {
          throw invalidArgument(`maxUses must be an integer from 1 to ${MAX_USES_LIMIT}`);
        }
        return tokens.create(target, ttl, maxUses);
      },
    },
    {
      plural: 'devices',
      verb: 'listProvisioningTokens',
      scope: 'collection',
      httpMethod: 'GET',
      permission: PROVISION_PERMISSION,
      handle: ({ target }) => {
        devices.patternOfParent(target, false);
        return { provisioningTokens: tokens.list(target) };
      },
    },
    {
      plural: 'devices',
      verb: 'revokeProvisioningToken',
      scope: 'collection',
      httpMethod: 'POST',
      permission: PROVISION_PERMISSION,
      handle: ({ target, body }) => {
        devices.patternOfParent(target, false);
        const id = objectBody(body)['id'];
        if (typeof id !== 'string' || !TOKEN_ID.test(id)) {
          throw invalidArgument('id must be a token id as listProvisioningTokens shows it (16 hex digits)');
        }
        if (!tokens.revoke(target, id)) throw notFound(`no provisioning token ${id} in ${target}`);
        return {};
      },
    },
  ];
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isDocument(body)) throw invalidArgument('the request body must be a JSON object');
  return body;
}

const isIntegerIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
