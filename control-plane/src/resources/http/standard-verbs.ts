import type { Response } from 'express';
import { ApiError, changesKey } from '@outpost/shared';
import type { StandardVerb } from '@outpost/shared';
import { parseBatchCreate } from '../batch-create.js';
import { batchUpdate, parseBatchUpdate } from '../batch-update.js';
import { listResources } from '../list-operation.js';
import type { ResourceEngine } from '../resource-engine.js';
import type { ResourceHandle } from '../resource-handle.js';
import { parseView } from '../views.js';
import type { ResponseMemo } from '../watch/response-memo.js';
import { watchOne } from '../watch/single-watch.js';
import { watchStateful } from '../watch/stateful-watch.js';
import { watchStateless } from '../watch/stateless-watch.js';
import { isSerialized } from '../watch/watch-types.js';
import type {
  SerializedResponse,
  WatchCollectionRequest,
  WatchCollectionResponse,
  WatchOptions,
} from '../watch/watch-types.js';
import { asBoolean, asInteger, asObject, asString, asStrings, only } from './query-params.js';
import type { Nested } from './query-params.js';

/** One request to a standard verb, its path already resolved. */
export interface VerbCall {
  handle: ResourceHandle;
  /** the resource's name (resource scope) or the collection's parent ('' at the root) */
  target: string;
  query: Nested;
  body: unknown;
  /** checks the caller's permission for `verb` of this kind on a name (throws PERMISSION_DENIED) */
  check(verb: string, name: string): void;
  res: Response;
}

/** What the verbs need of the router: the engine, watch settings, and how it runs a stream. */
export interface VerbServices {
  engine: ResourceEngine;
  watchOptions?: WatchOptions;
  memoOf(plural: string): ResponseMemo;
  /** streams `iterable` as NDJSON until it ends; `recheck` repeats the stream's authorization */
  stream<T>(
    res: Response,
    iterable: AsyncIterable<T>,
    controller: AbortController,
    recheck: () => void,
    shape?: (value: T) => unknown,
  ): Promise<void>;
}

/** A route of the table: where (scope, custom verb or none, HTTP method) and the one handler answering it. */
export interface VerbRoute {
  scope: 'root' | 'collection' | 'resource';
  verb?: string;
  method: string;
  /** the standard verb a definition may leave out (`without`): UNIMPLEMENTED then */
  offers?: StandardVerb;
  handle(call: VerbCall): unknown;
}

/** What a handler returns when it answered by streaming (nothing more is sent). */
export const STREAMED = Symbol('streamed');

/** The standard verbs of every resource, in the grpc-gateway mapping of design.md "REST mapping". */
export function standardRoutes(services: VerbServices): readonly VerbRoute[] {
  const batchGet = (call: VerbCall): unknown => {
    const q = only(call.query, ['names', 'fieldMask', 'view']);
    const names = asStrings(q.names, 'names') ?? [];
    for (const name of names) call.check('batchGet', name);
    const result = call.handle.batchGet({
      names,
      fieldMask: asString(q.fieldMask, 'fieldMask'),
      view: parseView(q.view),
    });
    return { [call.handle.def.plural]: result.found, missing: result.missing };
  };
  return [
    { scope: 'root', verb: 'batchGet', method: 'GET', handle: batchGet },
    { scope: 'collection', verb: 'batchGet', method: 'GET', handle: batchGet },
    {
      scope: 'resource',
      verb: 'watch',
      method: 'POST',
      offers: 'watch',
      handle: (call) => watchResource(services, call),
    },
    { scope: 'resource', method: 'GET', offers: 'get', handle: getResource },
    { scope: 'resource', method: 'PUT', offers: 'update', handle: (call) => updateResource(services, call) },
    { scope: 'resource', method: 'PATCH', offers: 'update', handle: (call) => updateResource(services, call) },
    { scope: 'resource', method: 'DELETE', offers: 'delete', handle: (call) => deleteResource(services, call) },
    {
      scope: 'collection',
      verb: 'watch',
      method: 'POST',
      offers: 'watch',
      handle: (call) => watchCollection(services, call),
    },
    {
      scope: 'collection',
      verb: 'batchUpdate',
      method: 'POST',
      offers: 'update',
      handle: (call) => batchUpdateCollection(services, call),
    },
    {
      scope: 'collection',
      verb: 'batchCreate',
      method: 'POST',
      offers: 'create',
      handle: (call) => batchCreateCollection(services, call),
    },
    { scope: 'collection', method: 'GET', offers: 'list', handle: listCollection },
    { scope: 'collection', method: 'POST', offers: 'create', handle: (call) => createResource(services, call) },
  ];
}

async function watchResource(services: VerbServices, call: VerbCall): Promise<typeof STREAMED> {
  const name = call.target;
  call.check('watch', name);
  const w = { ...call.query, ...(asObject(call.body ?? {}, 'watch request') ?? {}) };
  const q = only(w, ['fieldMask', 'view', 'name']);
  const controller = new AbortController();
  const request = { name, fieldMask: maskOf(q.fieldMask), view: parseView(q.view) };
  const iterable = watchOne(call.handle, request, controller.signal, services.watchOptions);
  await services.stream(call.res, iterable, controller, () => call.check('watch', name));
  return STREAMED;
}

function getResource(call: VerbCall): unknown {
  call.check('get', call.target);
  const q = only(call.query, ['fieldMask', 'view']);
  return call.handle.get({ name: call.target, fieldMask: asString(q.fieldMask, 'fieldMask'), view: parseView(q.view) });
}

function updateResource(services: VerbServices, call: VerbCall): unknown {
  const name = call.target;
  call.check('update', name);
  const q = only(call.query, ['updateMask', 'allowMissing', 'cas', 'responseMask']);
  if (asBoolean(q.allowMissing, 'allowMissing')) call.check('create', name);
  const cas = asObject(q.cas, 'cas');
  return services.engine.batch(() =>
    call.handle.update(
      {
        name,
        resource: call.body,
        updateMask: q.updateMask === undefined ? undefined : asString(q.updateMask, 'updateMask'),
        allowMissing: asBoolean(q.allowMissing, 'allowMissing'),
        cas: cas && { conditionalState: cas['conditionalState'], fieldMask: maskOf(cas['fieldMask']) },
        responseMask: responseMaskOf(q.responseMask),
      },
      { principal: call.res.locals['principal'] },
    ),
  );
}

async function deleteResource(services: VerbServices, call: VerbCall): Promise<unknown> {
  call.check('delete', call.target);
  const q = only(call.query, ['allowMissing']);
  await services.engine.batch(() =>
    call.handle.delete(
      { name: call.target, allowMissing: asBoolean(q.allowMissing, 'allowMissing') },
      { principal: call.res.locals['principal'] },
    ),
  );
  return {};
}

async function watchCollection(services: VerbServices, call: VerbCall): Promise<typeof STREAMED> {
  const { handle } = call;
  const scopeName = call.target || '*';
  call.check('watch', scopeName);
  const w = { ...call.query, ...(asObject(call.body ?? {}, 'watch request') ?? {}) };
  const q = only(w, [
    'type',
    'parent',
    'pageSize',
    'pageToken',
    'orderBy',
    'resumeToken',
    'startingTime',
    'filter',
    'fieldMask',
    'view',
    'maxChunkSize',
  ]);
  const request: WatchCollectionRequest = {
    parent: call.target,
    type: watchTypeOf(q.type),
    pageSize: asInteger(q.pageSize, 'pageSize'),
    pageToken: asString(q.pageToken, 'pageToken'),
    orderBy: asString(q.orderBy, 'orderBy'),
    resumeToken: asString(q.resumeToken, 'resumeToken'),
    startingTime: asString(q.startingTime, 'startingTime'),
    filter: asString(q.filter, 'filter'),
    fieldMask: maskOf(q.fieldMask),
    view: parseView(q.view),
    maxChunkSize: asInteger(q.maxChunkSize, 'maxChunkSize'),
  };
  const controller = new AbortController();
  const watch = request.type === 'STATELESS' ? watchStateless : watchStateful;
  const key = changesKey(handle.def);
  // the engine's generic `changes` become `<singular>Changes` on the wire
  const rename = (value: WatchCollectionResponse | SerializedResponse): unknown => {
    if (isSerialized(value)) return value;
    const { changes, ...rest } = value;
    return { [key]: changes, ...rest };
  };
  const watchOptions = { ...services.watchOptions, memo: services.memoOf(handle.def.plural), wireKey: key };
  const recheck = (): void => call.check('watch', scopeName);
  const iterable = watch(handle, request, controller.signal, watchOptions);
  await services.stream(call.res, iterable, controller, recheck, rename);
  return STREAMED;
}

async function batchUpdateCollection(services: VerbServices, call: VerbCall): Promise<unknown> {
  const { handle } = call;
  only(call.query, []); // the whole request is the body
  const parsed = parseBatchUpdate(handle, call.target, call.body);
  for (const { resource } of parsed.updates) call.check('update', String(resource['name']));
  const request = { ...parsed, responseMask: responseMaskOf(parsed.responseMask) };
  const principal: unknown = call.res.locals['principal'];
  const result = await services.engine.batch(() => batchUpdate(services.engine, handle, request, { principal }));
  return { [handle.def.plural]: result.updated, failures: result.failures };
}

async function batchCreateCollection(services: VerbServices, call: VerbCall): Promise<unknown> {
  const { handle } = call;
  call.check('create', call.target || '*');
  only(call.query, []); // the whole request is the body
  const parsed = parseBatchCreate(handle.def.singular, call.target, call.body);
  const responseMask = responseMaskOf(parsed.responseMask);
  const requests = parsed.resources.map((resource) => ({ parent: call.target, resource, responseMask }));
  const principal: unknown = call.res.locals['principal'];
  const created = await services.engine.batch(() => handle.createMany(requests, { principal }));
  return { [handle.def.plural]: created };
}

function listCollection(call: VerbCall): unknown {
  call.check('list', call.target || '*');
  const q = only(call.query, ['pageSize', 'pageToken', 'orderBy', 'filter', 'fieldMask', 'view', 'includePagingInfo']);
  const { items, ...paging } = listResources(call.handle, {
    parent: call.target,
    pageSize: asInteger(q.pageSize, 'pageSize'),
    pageToken: asString(q.pageToken, 'pageToken'),
    orderBy: asString(q.orderBy, 'orderBy'),
    filter: asString(q.filter, 'filter'),
    fieldMask: asString(q.fieldMask, 'fieldMask'),
    view: parseView(q.view),
    includePagingInfo: asBoolean(q.includePagingInfo, 'includePagingInfo'),
  });
  return { [call.handle.def.plural]: items, ...paging };
}

function createResource(services: VerbServices, call: VerbCall): unknown {
  call.check('create', call.target || '*');
  const q = only(call.query, ['responseMask']);
  call.res.status(200);
  return services.engine.batch(() =>
    call.handle.create(
      { parent: call.target, resource: call.body, responseMask: responseMaskOf(q.responseMask) },
      { principal: call.res.locals['principal'] },
    ),
  );
}

/** A route's standard verb, unless the definition leaves it out. */
export function checkOffered(handle: ResourceHandle, verb: StandardVerb | undefined): void {
  if (verb !== undefined && handle.def.without?.includes(verb)) {
    throw new ApiError('UNIMPLEMENTED', `${handle.def.plural} do not support ${verb}`);
  }
}

function maskOf(value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  if (value && typeof value === 'object' && Array.isArray((value as { paths?: unknown }).paths)) {
    return maskOf((value as { paths: unknown }).paths);
  }
  throw new ApiError('INVALID_ARGUMENT', 'a field mask must be a string of comma-separated paths');
}

function responseMaskOf(value: unknown) {
  const mask = asObject(value, 'responseMask');
  if (!mask) return undefined;
  const q = only(mask, ['skipEntireResponseBody', 'updatedFieldsOnly', 'bodyMask']);
  return {
    skipEntireResponseBody: asBoolean(q.skipEntireResponseBody, 'responseMask.skipEntireResponseBody'),
    updatedFieldsOnly: asBoolean(q.updatedFieldsOnly, 'responseMask.updatedFieldsOnly'),
    bodyMask: maskOf(q.bodyMask),
  };
}

function watchTypeOf(value: unknown): 'STATEFUL' | 'STATELESS' {
  const text = asString(value, 'type');
  if (text === undefined || text === '' || text === 'STATEFUL' || text === '0') return 'STATEFUL';
  if (text === 'STATELESS' || text === '1') return 'STATELESS';
  throw new ApiError('INVALID_ARGUMENT', `invalid watch type "${text}": STATEFUL or STATELESS`);
}
