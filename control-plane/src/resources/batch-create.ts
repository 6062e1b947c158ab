import { invalidArgument } from '@outpost/shared';
import { asDocument } from './doc-utils.js';
import type { Doc } from './resource-table.js';

/** Creates one call may carry, as batchUpdate takes updates. */
export const MAX_BATCH_CREATES = 1000;

export interface BatchCreateRequest {
  /** each: the resource as a create's body (`name` optional: an id is generated) */
  resources: Doc[];
  responseMask: unknown;
}

/**
 * The requests of `POST /v1/{parent}/{plural}:batchCreate`, `{requests: [{<singular>: {...}, parent?}],
 * responseMask?}` (AIP-233): a request's `parent`, when given, is the collection's. Anything else is
 * INVALID_ARGUMENT naming the request.
 */
export function parseBatchCreate(singular: string, parent: string, body: unknown): BatchCreateRequest {
  const top = asDocument(body, 'batchCreate body');
  for (const key of Object.keys(top)) {
    if (key !== 'requests' && key !== 'responseMask') {
      throw invalidArgument(`unknown field "${key}" in batchCreate (allowed: requests, responseMask)`);
    }
  }
  const requests = top['requests'];
  if (!Array.isArray(requests) || requests.length === 0) {
    throw invalidArgument('batchCreate needs a non-empty "requests" list');
  }
  if (requests.length > MAX_BATCH_CREATES) {
    throw invalidArgument(`batchCreate takes at most ${MAX_BATCH_CREATES} requests, not ${requests.length}`);
  }
  const resources = requests.map((raw, i) => {
    const request = asDocument(raw, `requests[${i}]`);
    for (const key of Object.keys(request)) {
      if (key !== singular && key !== 'parent') {
        throw invalidArgument(`unknown field "${key}" in requests[${i}] (allowed: ${singular}, parent)`);
      }
    }
    const own = request['parent'];
    if (own !== undefined && own !== '' && own !== parent) {
      throw invalidArgument(`requests[${i}].parent "${String(own)}" is not the collection's parent "${parent}"`);
    }
    return asDocument(request[singular], `requests[${i}].${singular}`);
  });
  return { resources, responseMask: top['responseMask'] };
}
