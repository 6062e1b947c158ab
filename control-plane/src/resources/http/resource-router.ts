import express from 'express';
import type { Request, Response, NextFunction, Router } from 'express';
import { ApiError, changesKey, invalidArgument, notFound, permissionOf } from '@outpost/shared';
import { batchUpdate, parseBatchUpdate } from '../batch-update.js';
import type { ResourceEngine } from '../resource-engine.js';
import { listResources } from '../list-operation.js';
import { parseView } from '../views.js';
import { watchOne } from '../watch/single-watch.js';
import { watchStateful } from '../watch/stateful-watch.js';
import { watchStateless } from '../watch/stateless-watch.js';
import { endable, OpenStreams } from '../watch/open-streams.js';
import { ResponseMemo } from '../watch/response-memo.js';
import type { StreamAdmission } from '../watch/stream-admission.js';
import { isSerialized } from '../watch/watch-types.js';
import type {
  SerializedResponse,
  WatchCollectionRequest,
  WatchCollectionResponse,
  WatchOptions,
} from '../watch/watch-types.js';
import type { CustomMethod } from './custom-method.js';
import { streamNdjson } from './ndjson-stream.js';
import { asBoolean, asInteger, asObject, asString, asStrings, nestQuery, only } from './query-params.js';
import type { Nested } from './query-params.js';
import { resolveRoute } from './route-resolver.js';
import type { RouteTarget } from './route-resolver.js';

export type Authorize = (principal: unknown, permission: string, resourceName: string) => void;

export interface ResourceRouterOptions {
  engine: ResourceEngine;
  authorize: Authorize;
  customMethods?: readonly CustomMethod[];
  watchOptions?: WatchOptions;
  /** limits the open streams per API key and in all; `ownerOf` names the key of a request's principal */
  streamAdmission?: { admission: StreamAdmission; ownerOf(principal: unknown): string };
  onStreamError?: (err: unknown) => void;
  /** how often open streams re-check their authorization besides on changes (default 60 s) */
  reauthorizeStreamsEveryMs?: number;
  /** kinds whose changes can lapse a grant (the hierarchy a scope covers through): open streams re-check on each */
  authorizationDependsOn?: readonly { subscribe(listener: () => void): () => void }[];
}

export interface ResourceRouter {
  router: Router;
  /** ends every open watch stream (for shutdown) */
  closeStreams(): void;
  /** ends the open streams of one API key (revoked) with an error line */
  endStreamsOf(owner: string, error: ApiError): void;
  /** how many watch streams are open */
  openStreams(): number;
  /** true for custom methods that authenticate by their own means (no API key) */
  isPublic(method: string, path: string): boolean;
}

/** REST for every registered resource, in the grpc-gateway mapping of design.md "REST mapping". */
export function createResourceRouter(options: ResourceRouterOptions): ResourceRouter {
  const { engine, authorize } = options;
  const streams = new OpenStreams(options.reauthorizeStreamsEveryMs);
  const unsubscribes = (options.authorizationDependsOn ?? []).map((kind) =>
    kind.subscribe(() => streams.reauthorizeSoon()),
  );
  const memos = new Map<string, ResponseMemo>();
  const memoOf = (plural: string): ResponseMemo => {
    let memo = memos.get(plural);
    if (!memo) memos.set(plural, (memo = new ResponseMemo()));
    return memo;
  };
  const router = express.Router();

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const target = resolveRoute(engine, req.path);
      if (!target) throw notFound(`no endpoint ${req.method} /v1${req.path}`);
      if (target.scope !== 'root' && target.problem !== undefined) throw invalidArgument(target.problem);
      const custom = target.verb ? findCustom(options.customMethods ?? [], target, req.method) : undefined;
      const principal: unknown = res.locals['principal'];
      const check = (permission: string, name: string): void => authorize(principal, permission, name);
      const query = nestQuery(req.query as Record<string, unknown>);
      if (custom) {
        const targetName =
          target.scope === 'resource' ? target.name : target.scope === 'collection' ? target.parent : '';
        const scope = (): string =>
          (custom.authorizeOn?.({ target: targetName, query, body: req.body as unknown }) ?? targetName) || '*';
        if (!custom.public) check(custom.permission, scope());
        const controller = new AbortController();
        const call = () =>
          custom.handle({
            target: targetName,
            body: req.body,
            query,
            principal,
            authorization: req.get('authorization'),
            authorize: check,
            signal: controller.signal,
          });
        const result = await (custom.batchable && !custom.stream ? engine.batch(call) : call());
        if (custom.stream) {
          const recheck = () => (custom.public ? undefined : check(custom.permission, scope()));
          return await stream(res, result as AsyncIterable<unknown>, controller, recheck);
        }
        res.json(result ?? {});
        return;
      }
      const body = await dispatch(target, req.method, query, req.body, check, res);
      if (body !== STREAMED) res.json(body);
    } catch (err) {
      next(err);
    }
  });

  const STREAMED = Symbol('streamed');

  /** `recheck` repeats the authorization the stream was opened with (see OpenStreams). */
  async function stream<T>(
    res: Response,
    iterable: AsyncIterable<T>,
    controller: AbortController,
    recheck: () => void,
    shape: (value: T) => unknown = (value) => value,
  ): Promise<void> {
    const admitted = options.streamAdmission;
    const owner = admitted?.ownerOf(res.locals['principal']) ?? 'anonymous';
    const release = admitted?.admission.admit(owner);
    const guarded = endable(iterable[Symbol.asyncIterator]());
    const forget = streams.add({ owner, recheck, end: guarded.end, abort: () => controller.abort() });
    try {
      await streamNdjson(res, guarded.iterator, controller, options.onStreamError ?? (() => {}), shape);
    } finally {
      forget();
      release?.();
    }
  }

  async function dispatch(
    target: RouteTarget,
    method: string,
    query: Nested,
    body: unknown,
    check: (permission: string, name: string) => void,
    res: Response,
  ): Promise<unknown> {
    if (target.scope === 'root' || (target.scope === 'collection' && target.verb === 'batchGet')) {
      const plural = target.scope === 'root' ? target.plural : target.handle.def.plural;
      const handle = engine.all().find((h) => h.def.plural === plural);
      if (!handle || target.verb !== 'batchGet' || method !== 'GET')
        throw notFound(`no endpoint ${method} ${plural}:${target.verb}`);
      const q = only(query, ['names', 'fieldMask', 'view']);
      const names = asStrings(q.names, 'names') ?? [];
      for (const name of names) check(permissionOf(handle.def, 'batchGet'), name);
      const result = handle.batchGet({ names, fieldMask: asString(q.fieldMask, 'fieldMask'), view: parseView(q.view) });
      return { [handle.def.plural]: result.found, missing: result.missing };
    }
    const handle = target.handle;
    const permission = (verb: string): string => permissionOf(handle.def, verb);
    const offered = (verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete'): void => {
      if (handle.def.without?.includes(verb)) {
        throw new ApiError('UNIMPLEMENTED', `${handle.def.plural} do not support ${verb}`);
      }
    };

    if (target.scope === 'resource') {
      const name = target.name;
      if (target.verb === 'watch' && method === 'POST') {
        offered('watch');
        check(permission('watch'), name);
        const w = { ...query, ...(asObject(body ?? {}, 'watch request') ?? {}) };
        const q = only(w, ['fieldMask', 'view', 'name']);
        const controller = new AbortController();
        const iterable = watchOne(
          handle,
          { name, fieldMask: maskOf(q.fieldMask), view: parseView(q.view) },
          controller.signal,
          options.watchOptions,
        );
        await stream(res, iterable, controller, () => check(permission('watch'), name));
        return STREAMED;
      }
      if (target.verb !== undefined) throw notFound(`no endpoint ${method} ${name}:${target.verb}`);
      if (method === 'GET') {
        offered('get');
        check(permission('get'), name);
        const q = only(query, ['fieldMask', 'view']);
        return handle.get({ name, fieldMask: asString(q.fieldMask, 'fieldMask'), view: parseView(q.view) });
      }
      if (method === 'PUT' || method === 'PATCH') {
        offered('update');
        check(permission('update'), name);
        const q = only(query, ['updateMask', 'allowMissing', 'cas', 'responseMask']);
        if (asBoolean(q.allowMissing, 'allowMissing')) check(permission('create'), name);
        const cas = asObject(q.cas, 'cas');
        return engine.batch(() =>
          handle.update(
            {
              name,
              resource: body,
              updateMask: q.updateMask === undefined ? undefined : asString(q.updateMask, 'updateMask'),
              allowMissing: asBoolean(q.allowMissing, 'allowMissing'),
              cas: cas && { conditionalState: cas['conditionalState'], fieldMask: maskOf(cas['fieldMask']) },
              responseMask: responseMaskOf(q.responseMask),
            },
            { principal: res.locals['principal'] },
          ),
        );
      }
      if (method === 'DELETE') {
        offered('delete');
        check(permission('delete'), name);
        const q = only(query, ['allowMissing']);
        await engine.batch(() =>
          handle.delete(
            { name, allowMissing: asBoolean(q.allowMissing, 'allowMissing') },
            { principal: res.locals['principal'] },
          ),
        );
        return {};
      }
      throw new ApiError('UNIMPLEMENTED', `${method} is not supported on ${name}`);
    }

    const parent = target.parent;
    const scopeName = parent || '*';
    if (target.verb === 'watch' && method === 'POST') {
      offered('watch');
      check(permission('watch'), scopeName);
      const w = { ...query, ...(asObject(body ?? {}, 'watch request') ?? {}) };
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
        parent,
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
      const watchOptions = { ...options.watchOptions, memo: memoOf(handle.def.plural), wireKey: key };
      const recheck = (): void => check(permission('watch'), scopeName);
      await stream(res, watch(handle, request, controller.signal, watchOptions), controller, recheck, rename);
      return STREAMED;
    }
    if (target.verb === 'batchUpdate' && method === 'POST') {
      offered('update');
      const parsed = parseBatchUpdate(handle, parent, body);
      for (const { resource } of parsed.updates) check(permission('update'), String(resource['name']));
      const request = { ...parsed, responseMask: responseMaskOf(parsed.responseMask) };
      const result = await engine.batch(() =>
        batchUpdate(engine, handle, request, { principal: res.locals['principal'] }),
      );
      return { [handle.def.plural]: result.updated, failures: result.failures };
    }
    if (target.verb !== undefined)
      throw notFound(`no endpoint ${method} ${parent}/${handle.def.plural}:${target.verb}`);
    if (method === 'GET') {
      offered('list');
      check(permission('list'), scopeName);
      const q = only(query, ['pageSize', 'pageToken', 'orderBy', 'filter', 'fieldMask', 'view', 'includePagingInfo']);
      const result = listResources(handle, {
        parent,
        pageSize: asInteger(q.pageSize, 'pageSize'),
        pageToken: asString(q.pageToken, 'pageToken'),
        orderBy: asString(q.orderBy, 'orderBy'),
        filter: asString(q.filter, 'filter'),
        fieldMask: asString(q.fieldMask, 'fieldMask'),
        view: parseView(q.view),
        includePagingInfo: asBoolean(q.includePagingInfo, 'includePagingInfo'),
      });
      const { items, ...paging } = result;
      return { [handle.def.plural]: items, ...paging };
    }
    if (method === 'POST') {
      offered('create');
      check(permission('create'), scopeName);
      const q = only(query, ['responseMask']);
      res.status(200);
      return engine.batch(() =>
        handle.create(
          { parent, resource: body, responseMask: responseMaskOf(q.responseMask) },
          { principal: res.locals['principal'] },
        ),
      );
    }
    throw new ApiError('UNIMPLEMENTED', `${method} is not supported on ${parent}/${handle.def.plural}`);
  }

  return {
    router,
    isPublic: (method, path) => {
      try {
        const target = resolveRoute(engine, path);
        return target?.verb !== undefined && findCustom(options.customMethods ?? [], target, method)?.public === true;
      } catch {
        return false;
      }
    },
    closeStreams: () => {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      streams.abortAll();
    },
    endStreamsOf: (owner, error) => streams.endOwnedBy(owner, error),
    openStreams: () => streams.size,
  };
}

function findCustom(
  methods: readonly CustomMethod[],
  target: RouteTarget,
  httpMethod: string,
): CustomMethod | undefined {
  const plural = target.scope === 'root' ? target.plural : target.handle.def.plural;
  return methods.find(
    (m) => m.plural === plural && m.verb === target.verb && m.scope === target.scope && m.httpMethod === httpMethod,
  );
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
