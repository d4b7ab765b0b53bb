/**
 * Every error the service answers with, and the one place that turns it into an
 * RFC 9457 problem+json response. Handlers and the store throw these; nothing else
 * decides a status code.
 */
export type ProblemKind =
  | 'validation-error'
  | 'malformed-json'
  | 'unauthorized'
  | 'link-password-required'
  | 'link-password-wrong'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'conflict'
  | 'last-owner'
  | 'folder-cycle'
  | 'folder-not-empty'
  | 'restore-target-gone'
  | 'member-limit'
  | 'repository-limit'
  | 'depth-limit'
  | 'quota-exceeded'
  | 'request-in-progress'
  | 'cursor-expired'
  | 'upload-incomplete'
  | 'upload-mismatch'
  | 'upload-closed'
  | 'upload-expired'
  | 'precondition-failed'
  | 'idempotency-key-reused'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'throttled'
  | 'unavailable'
  | 'internal';

/** Status and title of every kind of error: the one place a status code is decided. */
export const problems: Readonly<Record<ProblemKind, { status: number; title: string }>> = {
  'validation-error': { status: 400, title: 'Invalid request' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'link-password-required': { status: 401, title: 'This link needs its password' },
  'link-password-wrong': { status: 401, title: 'The password of this link is wrong' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not Found' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'last-owner': { status: 409, title: 'A repository keeps at least one owner' },
  'folder-cycle': { status: 409, title: 'A folder cannot move into itself or below itself' },
  'folder-not-empty': { status: 409, title: 'The folder is not empty' },
  'restore-target-gone': { status: 409, title: 'The folder to restore into is gone' },
  'member-limit': { status: 409, title: 'The repository has as many members as it may' },
  'repository-limit': { status: 409, title: 'The user is in as many repositories as they may' },
  'depth-limit': { status: 409, title: 'Folders nest too deep' },
  'quota-exceeded': { status: 409, title: "The repository's storage quota is reached" },
  'request-in-progress': { status: 409, title: 'A request with this Idempotency-Key is in progress' },
  'cursor-expired': { status: 410, title: 'The cursor is older than the feed keeps' },
  'upload-incomplete': { status: 409, title: 'Parts of the upload are missing' },
  'upload-mismatch': { status: 409, title: 'The uploaded bytes are not the ones declared' },
  'upload-closed': { status: 409, title: 'The upload was cancelled or has failed' },
  'upload-expired': { status: 410, title: 'The upload expired' },
  'precondition-failed': { status: 412, title: 'Precondition Failed' },
  'idempotency-key-reused': { status: 422, title: 'The Idempotency-Key was used for another request' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type' },
  throttled: { status: 429, title: 'Too Many Requests' },
  unavailable: { status: 503, title: 'Service Unavailable' },
  internal: { status: 500, title: 'Internal Server Error' },
};

export const problemTypePrefix = 'urn:problem-type:documents:';

export interface FieldError {
  path: string;
  message: string;
}

export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'HttpError';
    this.status = problems[kind].status;
  }
}

export const validationError = (errors: FieldError[]) =>
  new HttpError('validation-error', errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '), { errors });
export const invalidField = (path: string, message: string) => validationError([{ path, message }]);
export const notFound = (what: string) => new HttpError('not-found', `${what} was not found.`);
export const forbidden = (detail: string) => new HttpError('forbidden', detail);
export const conflict = (detail: string) => new HttpError('conflict', detail);
export const preconditionFailed = (detail: string) => new HttpError('precondition-failed', detail);
export const unavailable = (detail: string, retryAfterSeconds = 1) =>
  new HttpError('unavailable', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
export const throttled = (detail: string, retryAfterSeconds = 1) =>
  new HttpError('throttled', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });

/** DynamoDB / SDK error names that mean "slow down" and "try again later". */
const throttlingErrors = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'SlowDown']);
const unavailableErrors = new Set([
  'ServiceUnavailable',
  'InternalServerError',
  'InternalError',
  'ServiceUnavailableException',
  'TransactionConflictException',
  'TransactionInProgressException',
  'TimeoutError',
  'RequestTimeout',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);

/** Maps anything thrown to an HttpError; unknown errors become a 500 with no internals. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  // Powertools' idempotency utility (core/http/idempotency.ts), by its errors' names.
  if (hasErrorName(error, new Set(['IdempotencyValidationError']))) {
    return new HttpError('idempotency-key-reused', 'This Idempotency-Key was used for another request (method, path, If-Match or body).');
  }
  if (hasErrorName(error, new Set(['IdempotencyAlreadyInProgressError']))) {
    return new HttpError('request-in-progress', 'A request with this Idempotency-Key is still running; retry shortly to get its answer.', {
      headers: { 'Retry-After': '1' },
    });
  }
  if (hasErrorName(error, throttlingErrors)) return throttled('The database is busy; retry shortly.');
  if (hasErrorName(error, unavailableErrors)) return unavailable('The database or the file store is unavailable; retry shortly.');
  return new HttpError('internal', 'An unexpected error occurred.');
}

/** True when the error, or any error in its `cause` chain, has one of these names or codes. */
function hasErrorName(error: unknown, names: Set<string>): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current); ) {
    seen.add(current);
    const { name, code, cause } = current as { name?: string; code?: string; cause?: unknown };
    if ((name && names.has(name)) || (code && names.has(code))) return true;
    current = cause;
  }
  return false;
}

export interface ProblemResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export function problemResponse(error: HttpError): ProblemResponse {
  const { status, title } = problems[error.kind];
  const body: Record<string, unknown> = { type: problemTypePrefix + error.kind, title, status, detail: error.detail };
  if (error.options.errors) body.errors = error.options.errors;
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...error.options.headers,
    },
    body: JSON.stringify(body),
  };
}
