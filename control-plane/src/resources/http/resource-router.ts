import express from 'express';
import type { Request, Response, NextFunction, Router } from 'express';
import { ApiError, invalidArgument, notFound, permissionOf } from '@outpost/shared';
import type { ResourceEngine } from '../resource-engine.js';
import { endable, OpenStreams } from '../watch/open-streams.js';
import { ResponseMemo } from '../watch/response-memo.js';
import type { StreamAdmission } from '../watch/stream-admission.js';
import type { WatchOptions } from '../watch/watch-types.js';
import type { CustomMethod } from './custom-method.js';
import { streamNdjson } from './ndjson-stream.js';
import { nestQuery } from './query-params.js';
import type { Nested } from './query-params.js';
import { resolveRoute } from './route-resolver.js';
import type { RouteTarget } from './route-resolver.js';
import { checkOffered, standardRoutes, STREAMED } from './standard-verbs.js';

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
  /** the API keys that have watch streams open */
  streamOwners(): string[];
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
      const query = nestQuery(req.query);
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

  const routes = standardRoutes({ engine, watchOptions: options.watchOptions, memoOf, stream });

  /** Answers a standard verb: the route of the table for the target's scope, verb and method. */
  async function dispatch(
    target: RouteTarget,
    method: string,
    query: Nested,
    body: unknown,
    check: (permission: string, name: string) => void,
    res: Response,
  ): Promise<unknown> {
    const plural = target.scope === 'root' ? target.plural : target.handle.def.plural;
    const route = routes.find((r) => r.scope === target.scope && r.verb === target.verb && r.method === method);
    const handle = target.scope === 'root' ? engine.all().find((h) => h.def.plural === plural) : target.handle;
    if (!route || !handle) throw missing(target, method, plural);
    checkOffered(handle, route.offers);
    const name = target.scope === 'resource' ? target.name : target.scope === 'collection' ? target.parent : '';
    return route.handle({
      handle,
      target: name,
      query,
      body,
      check: (verb, on) => check(permissionOf(handle.def, verb), on),
      res,
    });
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
    streamOwners: () => streams.owners(),
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

/** NOT_FOUND for a custom verb no route answers, UNIMPLEMENTED for a method a scope does not take. */
function missing(target: RouteTarget, method: string, plural: string): ApiError {
  if (target.scope === 'root' || target.verb === 'batchGet')
    return notFound(`no endpoint ${method} ${plural}:${target.verb}`);
  const where = target.scope === 'resource' ? target.name : `${target.parent}/${plural}`;
  if (target.verb !== undefined) return notFound(`no endpoint ${method} ${where}:${target.verb}`);
  return new ApiError('UNIMPLEMENTED', `${method} is not supported on ${where}`);
}
