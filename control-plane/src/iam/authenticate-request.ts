import { resourceExhausted, unauthenticated, type ApiError } from '@outpost/shared';
import type { Request, RequestHandler, Response } from 'express';
import { sendApiError } from '../server/http-errors.js';
import { hasUnreadBody } from '../server/request-body.js';
import type { ApiKeyStore } from './api-key-store.js';
import { clientAddressOf, rateLimitKeyOf, TrustedProxies } from './client-address.js';
import type { FailedAuthLimiter } from './failed-auth-limiter.js';
import type { Principal } from './principal.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Limits the wrong keys one source may present; the source is read as `trustedProxies` allow. */
export interface FailedAuthGuard {
  limiter: FailedAuthLimiter;
  trustedProxies?: TrustedProxies;
}

/**
 * Reads `Authorization: Bearer <secret>` and puts the key's principal on `res.locals.principal`;
 * answers UNAUTHENTICATED (401) when the header is missing or malformed or the key unknown or revoked, without
 * reading the request body (mount it before any body parser: an unknown caller's body costs nothing).
 * A request already authenticated passes straight through, so the middleware may be mounted twice.
 * With a guard, a source that presented too many wrong or malformed keys is answered 429 RESOURCE_EXHAUSTED
 * with `Retry-After` instead of 401; a valid key is always let in.
 */
export function authenticateRequest(store: Pick<ApiKeyStore, 'authenticate'>, guard?: FailedAuthGuard): RequestHandler {
  const trustedProxies = guard?.trustedProxies ?? new TrustedProxies();
  const failed = (req: Request, res: Response, err: ApiError): void => {
    const source = rateLimitKeyOf(
      clientAddressOf(req.socket.remoteAddress, req.get('x-forwarded-for'), trustedProxies),
    );
    const retryAfterSeconds = guard?.limiter.fail(source);
    if (retryAfterSeconds === undefined) return refuse(req, res, err);
    res.setHeader('Retry-After', String(retryAfterSeconds));
    refuse(
      req,
      res,
      resourceExhausted(`too many failed authentications from ${source}: retry in ${retryAfterSeconds} s`),
    );
  };
  return (req, res, next) => {
    if (res.locals['principal'] !== undefined) return next();
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      return refuse(req, res, unauthenticated('missing API key: send the header "Authorization: Bearer <API key>"'));
    }
    const secret = BEARER.exec(header)?.[1];
    if (secret === undefined) {
      return failed(req, res, unauthenticated('malformed Authorization header: expected "Bearer <API key>"'));
    }
    const principal = store.authenticate(secret);
    if (!principal) return failed(req, res, unauthenticated('invalid or revoked API key'));
    res.locals['principal'] = principal;
    next();
  };
}

/** The principal authenticateRequest stored; UNAUTHENTICATED when the route was not behind it. */
export function principalOf(res: Response): Principal {
  const principal: unknown = res.locals['principal'];
  if (!isPrincipal(principal)) throw unauthenticated('request is not authenticated');
  return principal;
}

function refuse(req: Request, res: Response, err: ApiError): void {
  res.setHeader('WWW-Authenticate', 'Bearer');
  // the body was not read: close the connection after the answer instead of waiting for the body to drain
  if (hasUnreadBody(req)) res.setHeader('Connection', 'close');
  sendApiError(res, err);
}

function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const { name, grants } = value as { name?: unknown; grants?: unknown };
  return typeof name === 'string' && Array.isArray(grants);
}
