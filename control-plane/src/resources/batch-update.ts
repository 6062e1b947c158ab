import { ApiError, invalidArgument } from '@outpost/shared';
import { isDocument } from './doc-utils.js';
import type { ResourceEngine } from './resource-engine.js';
import type { ResourceHandle } from './resource-handle.js';
import type { OperationContext } from './resource-rules.js';
import type { Doc } from './resource-table.js';
import type { MaskInput, ResponseMask, UpdateRequest } from './requests.js';

/** Updates one call may carry, as batchGet takes names. */
export const MAX_BATCH_UPDATES = 1000;

export interface BatchUpdateRequest {
  parent: string;
  /** each: the resource (with its name), the paths to change and, optionally, the state they must still have */
  updates: readonly { resource: Doc; updateMask: MaskInput; cas?: UpdateRequest['cas'] }[];
  /** false (default): all or nothing, the first refusal answers; true: each update alone, refusals listed */
  allowPartialSuccess: boolean;
  responseMask?: ResponseMask;
}

export interface BatchUpdateResult {
  updated: Doc[];
  failures: { name: string; error: { code: number; status: string; message: string } }[];
}

/**
 * The requests of `POST /v1/{parent}/{plural}:batchUpdate`, `{requests: [{<singular>: {...}, updateMask, cas?}],
 * allowPartialSuccess?, responseMask?}` (`cas` as a PUT's: `{fieldMask, conditionalState}`): every name must lie in the parent and every update carries a mask (a
 * batch never replaces whole resources). Anything else is INVALID_ARGUMENT naming the request.
 */
export function parseBatchUpdate(
  handle: ResourceHandle,
  parent: string,
  body: unknown,
): Omit<BatchUpdateRequest, 'responseMask'> & { responseMask: unknown } {
  const singular = handle.def.singular;
  const top = record(body, 'batchUpdate body');
  for (const key of Object.keys(top)) {
    if (!['requests', 'allowPartialSuccess', 'responseMask'].includes(key)) {
      throw invalidArgument(
        `unknown field "${key}" in batchUpdate (allowed: requests, allowPartialSuccess, responseMask)`,
      );
    }
  }
  const requests = top['requests'];
  if (!Array.isArray(requests) || requests.length === 0)
    throw invalidArgument('batchUpdate needs a non-empty "requests" list');
  if (requests.length > MAX_BATCH_UPDATES) {
    throw invalidArgument(`batchUpdate takes at most ${MAX_BATCH_UPDATES} requests, not ${requests.length}`);
  }
  const allowPartialSuccess = top['allowPartialSuccess'] ?? false;
  if (typeof allowPartialSuccess !== 'boolean') throw invalidArgument('"allowPartialSuccess" must be true or false');
  const seen = new Set<string>();
  const updates = requests.map((raw, i) => {
    const request = record(raw, `requests[${i}]`);
    for (const key of Object.keys(request)) {
      if (key !== singular && key !== 'updateMask' && key !== 'cas') {
        throw invalidArgument(`unknown field "${key}" in requests[${i}] (allowed: ${singular}, updateMask, cas)`);
      }
    }
    const resource = record(request[singular], `requests[${i}].${singular}`);
    const name = resource['name'];
    if (typeof name !== 'string' || name === '') throw invalidArgument(`requests[${i}].${singular}.name is required`);
    if (!inParent(parent, handle.patternOfName(name).parentOf(name) ?? '')) {
      throw invalidArgument(`requests[${i}]: "${name}" is not in parent "${parent}"`);
    }
    if (seen.has(name)) throw invalidArgument(`requests[${i}]: "${name}" is updated twice`);
    seen.add(name);
    const updateMask = maskOf(request['updateMask']);
    if (updateMask === undefined || handle.parseMask(updateMask).length === 0) {
      throw invalidArgument(`requests[${i}].updateMask is required: a batch changes only the fields it names`);
    }
    if (request['cas'] === undefined) return { resource, updateMask };
    const cas = record(request['cas'], `requests[${i}].cas`);
    const casMask = maskOf(cas['fieldMask']);
    if (casMask === undefined || handle.parseMask(casMask).length === 0) {
      throw invalidArgument(`requests[${i}].cas.fieldMask must name at least one field`);
    }
    return { resource, updateMask, cas: { fieldMask: casMask, conditionalState: cas['conditionalState'] } };
  });
  return { parent, updates, allowPartialSuccess, responseMask: top['responseMask'] };
}

/**
 * Applies the updates as `PUT /v1/{name}?updateMask=` would, each with the resource's own rules, in one
 * transaction: all or nothing, or, with allowPartialSuccess, each in a savepoint of its own so that a refused
 * update changes nothing and is listed with its error while the others are written.
 */
export function batchUpdate(
  engine: ResourceEngine,
  handle: ResourceHandle,
  request: BatchUpdateRequest,
  ctx: OperationContext,
): BatchUpdateResult {
  const updateOf =
    ({ resource, updateMask, cas }: BatchUpdateRequest['updates'][number]) =>
    (): Doc =>
      handle.update({ resource, updateMask, responseMask: request.responseMask, ...(cas ? { cas } : {}) }, ctx);
  if (request.allowPartialSuccess) {
    // a savepoint per update costs about a tenth of the batch: first try the whole batch in one, and only when an
    // update is refused undo it and take each update in a savepoint of its own
    try {
      return engine.savepoint(() => ({ updated: request.updates.map((u) => updateOf(u)()), failures: [] }));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  const result: BatchUpdateResult = { updated: [], failures: [] };
  for (const one of request.updates) {
    const update = updateOf(one);
    const resource = one.resource;
    if (!request.allowPartialSuccess) {
      result.updated.push(update());
      continue;
    }
    try {
      result.updated.push(engine.savepoint(update));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      result.failures.push({ name: String(resource['name']), error: err.toBody().error });
    }
  }
  return result;
}

/** Whether a resource's parent lies in `parent`, whose `-` segments match any value. */
function inParent(parent: string, own: string): boolean {
  const want = parent.split('/');
  const have = own.split('/');
  return want.length === have.length && want.every((segment, i) => segment === '-' || segment === have[i]);
}

function maskOf(mask: unknown): MaskInput | undefined {
  if (typeof mask === 'string') return mask;
  return Array.isArray(mask) && mask.every((p) => typeof p === 'string') ? (mask as string[]) : undefined;
}

function record(value: unknown, what: string): Doc {
  if (!isDocument(value)) throw invalidArgument(`${what} must be an object`);
  return value;
}
