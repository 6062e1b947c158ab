import { ApiError, internalError, invalidArgument, notFound, unauthenticated } from '@outpost/shared';
import type { CanonicalCode } from '@outpost/shared';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { isStorageFull, storageFull } from './storage-full.js';
import type { Logger } from './logger.js';

/** An ApiError answered with an HTTP status of its own (413, 408), the canonical status staying in the body. */
export class HttpStatusError extends ApiError {
  constructor(
    private readonly http: number,
    status: CanonicalCode,
    message: string,
  ) {
    super(status, message);
  }

  override get httpCode(): number {
    return this.http;
  }
}

/** 413: a request body over its limit. */
export const payloadTooLarge = (message: string): ApiError => new HttpStatusError(413, 'RESOURCE_EXHAUSTED', message);

/** 408: a request body that stopped arriving. */
export const requestTimeout = (message: string): ApiError => new HttpStatusError(408, 'INVALID_ARGUMENT', message);

/** Answers with the error's HTTP status and its one JSON body. */
export function sendApiError(res: Response, err: ApiError): void {
  res.status(err.httpCode).json(err.toBody());
}

/**
 * The last middleware of the app: ApiErrors become their body and status, a client's malformed input (body,
 * path encoding) a 4xx, a full disk UNAVAILABLE, anything else INTERNAL (logged, details not sent).
 */
export function apiErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status === 'INTERNAL')
      logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
    else if (isStorageFull(err))
      logger.warn({ method: req.method, url: req.originalUrl }, 'write refused: storage is full');
    if (res.headersSent) {
      // A streaming response already started: nothing valid can be appended, so end it.
      if (!res.writableEnded) res.end();
      return;
    }
    sendApiError(res, apiError);
  };
}

/** Answers NOT_FOUND for requests no route took. */
export function unknownRouteHandler(): RequestHandler {
  return (req, res) => sendApiError(res, notFound(`no route for ${req.method} ${req.path}`));
}

/** What an error thrown while serving a request answers; INTERNAL only for what is not the client's doing. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isStorageFull(err)) return storageFull();
  if (err instanceof URIError) return invalidArgument(`malformed percent-encoding in the request: ${err.message}`);
  const client = clientErrorOf(err);
  if (client) {
    if (client.type === 'entity.too.large') {
      return payloadTooLarge(`request body too large: the limit is ${client.limit ?? '?'} bytes`);
    }
    if (client.type === 'entity.parse.failed') return invalidArgument(`malformed JSON body: ${client.message}`);
    if (client.status === 413) return payloadTooLarge(client.message);
    if (client.status === 401) return unauthenticated(client.message);
    if (client.status === 404) return notFound(client.message);
    return invalidArgument(`invalid request: ${client.message}`);
  }
  return internalError('internal error');
}

interface ClientError {
  status: number;
  message: string;
  type?: string;
  limit?: number;
}

/**
 * The errors Express and body-parser raise for a client's mistake (the http-errors convention): a 4xx
 * `status` or `statusCode`, with `type` naming body-parser's case.
 */
function clientErrorOf(err: unknown): ClientError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { status, statusCode, type, limit } = err as Error & Record<string, unknown>;
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code >= 500) return undefined;
  return {
    status: code,
    message: err.message,
    ...(typeof type === 'string' ? { type } : {}),
    ...(typeof limit === 'number' ? { limit } : {}),
  };
}
