/** Canonical error codes of the Outpost APIs (design.md "Principles" 4). */
export const CANONICAL_CODES = [
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'ABORTED',
  'ALREADY_EXISTS',
  'RESOURCE_EXHAUSTED',
  'INTERNAL',
  'UNIMPLEMENTED',
  'UNAVAILABLE',
] as const;

export type CanonicalCode = (typeof CANONICAL_CODES)[number];

export const HTTP_STATUS_OF: Readonly<Record<CanonicalCode, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
};

/** The one JSON error body every API answers with. */
export interface ApiErrorBody {
  error: { code: number; status: CanonicalCode; message: string };
}

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: CanonicalCode,
    message: string,
  ) {
    super(message);
  }

  get httpCode(): number {
    return HTTP_STATUS_OF[this.status];
  }

  toBody(): ApiErrorBody {
    return { error: { code: this.httpCode, status: this.status, message: this.message } };
  }

  /** Rebuilds an ApiError from a response body; anything unrecognisable becomes INTERNAL or a code derived from the HTTP status. */
  static fromBody(body: unknown, httpStatus: number): ApiError {
    const err = (body as { error?: { status?: unknown; message?: unknown } } | null)?.error;
    const status = CANONICAL_CODES.find((c) => c === err?.status) ?? statusFromHttp(httpStatus);
    const message = typeof err?.message === 'string' ? err.message : `HTTP ${httpStatus}`;
    return new ApiError(status, message);
  }
}

function statusFromHttp(http: number): CanonicalCode {
  const exact = CANONICAL_CODES.find((c) => HTTP_STATUS_OF[c] === http);
  return exact ?? (http >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

export const invalidArgument = (message: string): ApiError => new ApiError('INVALID_ARGUMENT', message);
export const failedPrecondition = (message: string): ApiError => new ApiError('FAILED_PRECONDITION', message);
export const notFound = (message: string): ApiError => new ApiError('NOT_FOUND', message);
export const alreadyExists = (message: string): ApiError => new ApiError('ALREADY_EXISTS', message);
export const aborted = (message: string): ApiError => new ApiError('ABORTED', message);
export const permissionDenied = (message: string): ApiError => new ApiError('PERMISSION_DENIED', message);
export const unauthenticated = (message: string): ApiError => new ApiError('UNAUTHENTICATED', message);
export const resourceExhausted = (message: string): ApiError => new ApiError('RESOURCE_EXHAUSTED', message);
export const unavailable = (message: string): ApiError => new ApiError('UNAVAILABLE', message);
export const internalError = (message: string): ApiError => new ApiError('INTERNAL', message);
