import { ApiError, internalError, invalidArgument, notFound } from '@outpost/shared';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from './logger.js';

/** Answers with the error's HTTP status and its one JSON body. */
export function sendApiError(res: Response, err: ApiError): void {
  res.status(err.httpCode).json(err.toBody());
}

/**
 * The last middleware of the app: ApiErrors become their body and status, body-parser failures
 * INVALID_ARGUMENT, anything else INTERNAL (logged, details not sent).
 */
export function apiErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const apiError = toApiError(err);
    if (apiError.status === 'INTERNAL')
      logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
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

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isBodyParserError(err)) {
    if (err.type === 'entity.parse.failed') return invalidArgument(`malformed JSON body: ${err.message}`);
    return invalidArgument(`invalid request body: ${err.message}`);
  }
  return internalError('internal error');
}

interface BodyParserError {
  type: string;
  message: string;
  status: number;
}

/** body-parser (express.json) marks its client errors with `type` and a 4xx `status`. */
function isBodyParserError(err: unknown): err is BodyParserError {
  if (!(err instanceof Error)) return false;
  const { type, status } = err as Error & { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
}
