import { errorCodes, type ErrorCode } from './generated/error-codes.ts';

/** Codes the client itself gives when there is no answer from the API to report. */
export type ClientErrorCode =
  /** The request never got an HTTP answer (refused connection, DNS, reset, aborted). */
  | 'connection_failed'
  /** An answer that is not the API's error envelope (e.g. a proxy's page). */
  | 'unexpected_response'
  /** `waitUntilSettled` ran out of time. */
  | 'settle_timeout';

/** The API's codes that come with a given HTTP status, e.g. `CodeOfStatus<404>`. */
export type CodeOfStatus<S extends number> = {
  [C in ErrorCode]: (typeof errorCodes)[C] extends S ? C : never;
}[ErrorCode];

/** One failed field of a request: where (`in`), which (`path`, a JSON pointer) and why. */
export interface ErrorIssue {
  in?: 'body' | 'params' | 'querystring' | 'headers' | 'url';
  path: string;
  message: string;
}

/** What went wrong, by family: branch on `kind` (or `instanceof` a subclass), then on `code`. */
export type ErrorKind =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rejected'
  | 'unavailable'
  | 'server'
  | 'connection'
  | 'timeout';

/**
 * An API call that did not succeed. `code` is the API's stable code (docs/api-errors.md) or one
 * of the client's own; `message` is for people; `issues` names each failed field.
 */
export class StrataGateError extends Error {
  readonly kind: ErrorKind = 'server';
  override readonly name: string = 'StrataGateError';

  constructor(
    /** The HTTP status, or 0 when there was no answer. */
    readonly status: number,
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly issues: ErrorIssue[] = [],
    readonly details?: unknown,
    /** The operation that failed, e.g. `recordTurn`. */
    readonly operationId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether sending the same request again may succeed: nothing was done the first time. */
  get retryable(): boolean {
    return (
      this.kind === 'unavailable' ||
      this.kind === 'connection' ||
      this.code === 'version_conflict' ||
      this.code === 'request_timeout'
    );
  }
}

/** 400, 405, 413, 414, 415, 431: the request itself is wrong; see `issues`. */
export class InvalidRequestError extends StrataGateError {
  override readonly kind = 'invalid_request';
  override readonly name = 'InvalidRequestError';
  declare readonly code: CodeOfStatus<400 | 405 | 413 | 414 | 415 | 431>;
}
/** 401: no key, or an unknown or revoked one. */
export class UnauthorizedError extends StrataGateError {
  override readonly kind = 'unauthorized';
  override readonly name = 'UnauthorizedError';
  declare readonly code: CodeOfStatus<401>;
}
/** 403: the server does not allow this operation. */
export class ForbiddenError extends StrataGateError {
  override readonly kind = 'forbidden';
  override readonly name = 'ForbiddenError';
  declare readonly code: CodeOfStatus<403>;
}
/** 404: no such space, thread, block, event, node or batch in the key's tenant. */
export class NotFoundError extends StrataGateError {
  override readonly kind = 'not_found';
  override readonly name = 'NotFoundError';
  declare readonly code: CodeOfStatus<404>;
}
/** 409: an id reused for something else, a batch already recorded, a block not ready. */
export class ConflictError extends StrataGateError {
  override readonly kind = 'conflict';
  override readonly name = 'ConflictError';
  declare readonly code: CodeOfStatus<409>;
}
/** 422: well-formed but refused, e.g. an adoption citing refs its batch does not hold. */
export class RejectedError extends StrataGateError {
  override readonly kind = 'rejected';
  override readonly name = 'RejectedError';
  declare readonly code: CodeOfStatus<422>;
}
/** 408, 503: not done; send it again shortly. */
export class UnavailableError extends StrataGateError {
  override readonly kind = 'unavailable';
  override readonly name = 'UnavailableError';
  declare readonly code: CodeOfStatus<408 | 503>;
}
/** 500 or any other status: an unexpected failure of the server. */
export class ServerError extends StrataGateError {
  override readonly kind = 'server';
  override readonly name = 'ServerError';
}
/** No HTTP answer at all. */
export class ConnectionError extends StrataGateError {
  override readonly kind = 'connection';
  override readonly name = 'ConnectionError';
  declare readonly code: 'connection_failed';
}
/** `waitUntilSettled` ran out of time; `details` holds the last status seen. */
export class SettleTimeoutError extends StrataGateError {
  override readonly kind = 'timeout';
  override readonly name = 'SettleTimeoutError';
  declare readonly code: 'settle_timeout';
}

type Family = new (...args: ConstructorParameters<typeof StrataGateError>) => StrataGateError;

function familyOf(status: number): Family {
  switch (status) {
    case 400:
    case 405:
    case 413:
    case 414:
    case 415:
    case 431:
      return InvalidRequestError;
    case 401:
      return UnauthorizedError;
    case 403:
      return ForbiddenError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return RejectedError;
    case 408:
    case 503:
      return UnavailableError;
    default:
      return ServerError;
  }
}

/**
 * Whether a code is one of the API's. A server newer than this client may answer a code the
 * client does not know yet: it is kept as sent, not replaced, so callers still see it.
 */
export function isKnownErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorCodes, code);
}

/** The typed error for an API answer with a non-2xx status and its parsed body. */
export function errorFromAnswer(
  status: number,
  body: unknown,
  operationId?: string,
): StrataGateError {
  const envelope = (body as { error?: Record<string, unknown> } | null)?.error;
  const Family = familyOf(status);
  if (!envelope || typeof envelope.code !== 'string' || typeof envelope.message !== 'string') {
    return new Family(
      status,
      'unexpected_response',
      `the server answered ${status} without an API error body`,
      [],
      body,
      operationId,
    );
  }
  return new Family(
    status,
    envelope.code as ErrorCode,
    envelope.message,
    Array.isArray(envelope.issues) ? (envelope.issues as ErrorIssue[]) : [],
    envelope.details,
    operationId,
  );
}
