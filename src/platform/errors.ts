/**
 * One error family for the whole service. `status` maps to HTTP (and later to GraphQL
 * errors and job retries); `code` is stable for clients; `expose` says whether the message
 * may be shown to the caller. A 5xx never exposes its message.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.expose = status < 500;
    this.details = details;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: Record<string, unknown>, code = 'bad_request') {
    super(400, code, message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this', code = 'forbidden') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, code = 'not_found', details?: Record<string, unknown>) {
    super(404, code, message, details);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: Record<string, unknown>, status = 422, code = 'validation_failed') {
    super(status, code, message, details);
  }
}

/**
 * A PostgreSQL "data exception" (SQLSTATE class 22: a value out of range, an impossible date,
 * a NUL byte...) raised while running a caller's request comes from the caller's input. Input
 * is validated before it reaches SQL; this is the net under that validation, so a case it
 * misses is still a 400 and never a 500. The message stays generic: no SQL in responses.
 */
export function dataExceptionOf(err: unknown): AppError | undefined {
  const e = err as { code?: unknown; severity?: unknown };
  if (typeof e?.code !== 'string' || typeof e.severity !== 'string' || !/^22[0-9A-Z]{3}$/.test(e.code)) return undefined;
  return new AppError(400, 'invalid_value', 'A value in the request is out of range or malformed');
}

/**
 * A foreign key refused at write time (SQLSTATE 23503 foreign_key_violation, or 23001
 * restrict_violation): a record the request names was checked, then deleted by another
 * transaction before this one wrote (a race), or a record still referenced was removed. The
 * request's checks answer the plain cases; this is the net under them, so a race is a conflict
 * the client may retry (reading the records again), never a 500. No SQL in the message.
 */
export function referenceConflictOf(err: unknown): AppError | undefined {
  const e = err as { code?: unknown; severity?: unknown };
  if (typeof e?.severity !== 'string' || (e.code !== '23503' && e.code !== '23001')) return undefined;
  return new AppError(
    409,
    'conflict',
    'A record this request names was changed or removed at the same time by another request: read it again, then retry',
  );
}

/**
 * A statement stopped by the request's statement timeout (SQLSTATE 57014, query_canceled): the
 * request asked for more work than its API allows at once, or the database is overloaded.
 * Either way the client may try again, asking for less: 503, never an internal error.
 */
export function queryTimeoutOf(err: unknown): AppError | undefined {
  if ((err as { code?: unknown })?.code !== '57014') return undefined;
  return new AppError(
    503,
    'query_timeout',
    'The request took longer than this API allows and was stopped; ask for less (fewer records, fewer filters) or try again later',
  );
}

/** PostgreSQL binds at most this many values to one statement (the protocol counts them in 16 bits). */
export const MAX_BOUND_VALUES = 65535;

/** The refusal of a statement with more values than PostgreSQL can bind: it came from a request's input. */
export function tooManyValues(count: number): AppError {
  return new AppError(
    400,
    'too_many_values',
    `The request carries too many values (${count}; at most ${MAX_BOUND_VALUES} can be used in one query): send fewer`,
  );
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable', code = 'unavailable') {
    super(503, code, message);
  }
}
