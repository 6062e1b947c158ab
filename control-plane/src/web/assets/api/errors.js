/**
 * API errors as the dashboard shows them: every Outpost API answers a failure with
 * `{"error": {"code", "status", "message"}}`; anything else (a proxy's HTML page, a dropped connection) is
 * turned into the same shape so the user always sees a status and a message.
 */

export class DashboardApiError extends Error {
  /**
   * @param {string} status canonical code, e.g. FAILED_PRECONDITION
   * @param {number} code HTTP status (0 when the server was not reached)
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.name = 'DashboardApiError';
    /** @readonly */
    this.status = status;
    /** @readonly */
    this.code = code;
  }

  /** @returns {string} e.g. "FAILED_PRECONDITION (400): version 9.9.9 is not published for deviceTypes/sim" */
  describe() {
    return `${this.status}${this.code > 0 ? ` (${this.code})` : ''}: ${this.message}`;
  }
}

/** @type {Readonly<Record<number, string>>} */
const STATUS_OF_HTTP = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
};

/**
 * The error of a failed answer, from its HTTP status and body text.
 * @param {number} httpStatus
 * @param {string} text
 * @returns {DashboardApiError}
 */
export function parseApiError(httpStatus, text) {
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = isObject(body) && isObject(body['error']) ? body['error'] : undefined;
  const fallbackStatus = STATUS_OF_HTTP[httpStatus] ?? (httpStatus >= 500 ? 'INTERNAL' : 'UNKNOWN');
  const status = typeof error?.['status'] === 'string' ? error['status'] : fallbackStatus;
  const detail = text.trim().slice(0, 200);
  const message =
    typeof error?.['message'] === 'string' ? error['message'] : `HTTP ${httpStatus}${detail ? `: ${detail}` : ''}`;
  return new DashboardApiError(status, httpStatus, message);
}

/**
 * The server could not be reached (network error, aborted connection).
 * @param {string} doing what was being done, e.g. "GET /v1/osVersions"
 * @param {unknown} cause
 * @returns {DashboardApiError}
 */
export function unreachable(doing, cause) {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DashboardApiError('UNAVAILABLE', 0, `cannot ${doing}: ${reason || 'the server did not answer'}`);
}

/**
 * What to show for any thrown value.
 * @param {unknown} err
 * @returns {string}
 */
export function describeError(err) {
  if (err instanceof DashboardApiError) return err.describe();
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
