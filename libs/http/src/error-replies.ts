import { STATUS_CODES } from 'node:http';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { WrongExpectedVersionError } from '@stratagate/log';
import { AppError, type ErrorIssue } from './errors.ts';
import type { ErrorBody } from './schemas.ts';

/*
 * The one map from whatever a request ends in to the status and the error envelope it is answered
 * with: the use cases' errors, validation, Fastify's own refusals, and the client errors Node's
 * HTTP parser raises before Fastify sees a request. Messages never repeat the URL or a header's
 * value, so nothing a client sent by mistake (a key in a query string) is echoed or logged.
 * docs/api-errors.md lists every code.
 */

/** The longest path segment the router takes; longer ones are refused as `uri_too_long`. */
export const MAX_PARAM_LENGTH = 1024;

export interface ErrorReply {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

const envelope = (
  status: number,
  code: string,
  message: string,
  extra: { issues?: ErrorIssue[]; details?: unknown } = {},
): ErrorReply => ({
  status,
  body: {
    error: {
      code,
      message,
      ...(extra.issues ? { issues: extra.issues } : {}),
      ...(extra.details !== undefined ? { details: extra.details } : {}),
    },
  },
});

/** Fastify's refusals, by its code: our status, code and words, and where the fault lies. */
const FRAMEWORK_ERRORS: Record<string, [number, string, string, ErrorIssue]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [
    400,
    'invalid_json',
    'the request body is not valid JSON',
    { in: 'body', path: '/', message: 'not valid JSON' },
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    400,
    'invalid_json',
    'the request body is empty but its content type says JSON',
    { in: 'body', path: '/', message: 'empty' },
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'send the request body as JSON, with content-type application/json',
    { in: 'headers', path: '/content-type', message: 'must be application/json' },
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [
    413,
    'payload_too_large',
    'request body exceeds the configured limit',
    { in: 'body', path: '/', message: 'larger than STRATAGATE_BODY_LIMIT_BYTES' },
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    'invalid_request',
    'the request body does not match its content-length',
    { in: 'headers', path: '/content-length', message: 'does not match the body' },
  ],
  FST_ERR_BAD_URL: [
    400,
    'invalid_request',
    'the URL is not valid: a malformed percent-encoding',
    { in: 'url', path: '/', message: 'malformed percent-encoding' },
  ],
  FST_ERR_MAX_PARAM_LENGTH: [
    414,
    'uri_too_long',
    `a path segment of the URL is longer than ${MAX_PARAM_LENGTH} characters`,
    { in: 'params', path: '/', message: `longer than ${MAX_PARAM_LENGTH} characters` },
  ],
};

/** The reply to an error a request ended in. `status` 500 means unexpected: log it. */
export function errorReply(error: unknown): ErrorReply {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'input';
    return envelope(400, 'invalid_request', `request ${where} is invalid`, {
      issues: error.validation.map((v) => ({
        in: error.validationContext,
        path: v.instancePath || '/',
        message: v.message,
      })) as ErrorIssue[],
    });
  }
  if (error instanceof AppError) {
    return envelope(error.status, error.code, error.message, {
      ...(error.issues ? { issues: error.issues } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
    });
  }
  if (error instanceof WrongExpectedVersionError) {
    // Another writer kept changing the space while this request was decided again and again.
    return envelope(
      409,
      'version_conflict',
      'the space changed while this request was being written; send it again',
    );
  }
  const e = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  const known = typeof e.code === 'string' ? FRAMEWORK_ERRORS[e.code] : undefined;
  if (known) {
    const [status, code, message, issue] = known;
    return envelope(status, code, message, { issues: [issue] });
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    // A refusal of Fastify's not listed above: its status, in our words (its own may hold the URL).
    return envelope(status, 'bad_request', `the request was refused: ${STATUS_CODES[status]}`);
  }
  return envelope(500, 'internal', 'internal error');
}

/** The 404, or the 405 (with `allow`) when the path is served for other methods. */
export function noRouteReply(method: string, allowed: readonly string[]): ErrorReply {
  if (allowed.length === 0) {
    return envelope(
      404,
      'route_not_found',
      'no operation at this path; /openapi.json lists every operation',
      { issues: [{ in: 'url', path: '/', message: 'no such path' }] },
    );
  }
  return {
    ...envelope(
      405,
      'method_not_allowed',
      `${method} is not an operation of this path; it takes ${allowed.join(', ')}`,
      { issues: [{ in: 'url', path: '/', message: `use ${allowed.join(', ')}` }] },
    ),
    headers: { allow: allowed.join(', ') },
  };
}

/** A request that arrives while the server shuts down. */
export function shuttingDownReply(): ErrorReply {
  return envelope(503, 'shutting_down', 'the server is shutting down; send the request again');
}

/** Node's HTTP parser errors: where in the request each one lies. */
const PARSER_ERROR_PLACES: [RegExp, NonNullable<ErrorIssue['in']>, string][] = [
  [/^HPE_(INVALID_METHOD|INVALID_VERSION|INVALID_CONSTANT|LF_EXPECTED|CR_EXPECTED)/, 'url', '/'],
  [/^HPE_INVALID_URL/, 'url', '/'],
  [/^HPE_(INVALID_CONTENT_LENGTH|UNEXPECTED_CONTENT_LENGTH)/, 'headers', '/content-length'],
  [/^HPE_INVALID_TRANSFER_ENCODING/, 'headers', '/transfer-encoding'],
  [/^HPE_(INVALID_CHUNK_SIZE|CHUNK_EXTENSIONS_OVERFLOW|INVALID_EOF_STATE)/, 'body', '/'],
];

/**
 * The reply to a client error Node raises before a request reaches Fastify (`clientError`): a
 * request not received within the request timeout (408), a request line and headers over the
 * size limit (431), or anything the HTTP parser refuses (400). Null when there is no one to
 * answer (the connection was reset).
 */
export function clientErrorReply(error: { code?: string }): ErrorReply | null {
  const code = error.code ?? '';
  if (code === 'ECONNRESET') return null;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return envelope(408, 'request_timeout', 'the request was not received in time', {
      issues: [{ in: 'body', path: '/', message: 'not received within the request timeout' }],
    });
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return envelope(431, 'headers_too_large', 'the request line and headers are too large', {
      issues: [{ in: 'headers', path: '/', message: 'larger than the server takes (16 KiB)' }],
    });
  }
  const place = PARSER_ERROR_PLACES.find(([pattern]) => pattern.test(code));
  const [where, path] = place ? [place[1], place[2]] : (['headers', '/'] as const);
  return envelope(400, 'bad_request', 'the request is not well-formed HTTP/1.1', {
    issues: [{ in: where, path, message: 'malformed' }],
  });
}

/** A reply as raw HTTP/1.1 bytes, for a socket no response object owns; it closes the connection. */
export function rawHttpReply(reply: ErrorReply): string {
  const body = JSON.stringify(reply.body);
  return (
    `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status]}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}
