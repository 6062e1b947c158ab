import { unauthenticated, type ApiError } from '@outpost/shared';
import type { Request, RequestHandler, Response } from 'express';
import { sendApiError } from '../server/http-errors.js';
import { hasUnreadBody } from '../server/request-body.js';
import type { ApiKeyStore } from './api-key-store.js';
import type { Principal } from './principal.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Reads `Authorization: Bearer <secret>` and puts the key's principal on `res.locals.principal`;
 * answers UNAUTHENTICATED (401) when the header is missing or malformed or the key unknown or revoked, without
 * reading the request body (mount it before any body parser: an unknown caller's body costs nothing).
 * A request already authenticated passes straight through, so the middleware may be mounted twice.
 */
export function authenticateRequest(store: Pick<ApiKeyStore, 'authenticate'>): RequestHandler {
  return (req, res, next) => {
    if (res.locals['principal'] !== undefined) return next();
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      return refuse(req, res, unauthenticated('missing API key: send the header "Authorization: Bearer <API key>"'));
    }
    const secret = BEARER.exec(header)?.[1];
    if (secret === undefined) {
      return refuse(req, res, unauthenticated('malformed Authorization header: expected "Bearer <API key>"'));
    }
    const principal = store.authenticate(secret);
    if (!principal) return refuse(req, res, unauthenticated('invalid or revoked API key'));
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
