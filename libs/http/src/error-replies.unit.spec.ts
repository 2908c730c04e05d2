import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { WrongExpectedVersionError } from '@stratagate/log';
import { AppError, conflict, invalidRequest, notFound } from './errors.ts';
import { clientErrorReply, errorReply, noRouteReply, rawHttpReply } from './error-replies.ts';

const URL_WITH_KEY = '/v1/spaces/s1/status?api_key=sg_secret';

describe('errorReply: every error a request can end in, in one envelope', () => {
  it('answers the use cases’ errors with their status, code, details and issues', () => {
    expect(errorReply(notFound('space', 'p1'))).toEqual({
      status: 404,
      body: { error: { code: 'space_not_found', message: "space 'p1' was not found" } },
    });
    expect(errorReply(conflict('turn_id_reused', 'reused', { turnId: 't' })).body.error).toEqual({
      code: 'turn_id_reused',
      message: 'reused',
      details: { turnId: 't' },
    });
    const invalid = errorReply(
      invalidRequest('request body is invalid', [{ in: 'body', path: '/a', message: 'NUL' }]),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.issues).toEqual([{ in: 'body', path: '/a', message: 'NUL' }]);
  });

  it('answers a wrong expected version 409, not 500, without naming the tenant', () => {
    const error = new WrongExpectedVersionError({ tenantId: 'acme', spaceId: 's1' }, 3, 4);
    const answer = errorReply(error);
    expect([answer.status, answer.body.error.code]).toEqual([409, 'version_conflict']);
    expect(JSON.stringify(answer)).not.toContain('acme');
  });

  it.each([
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'invalid_json', 'body', '/'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'invalid_json', 'body', '/'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type', 'headers', '/content-type'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'payload_too_large', 'body', '/'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'invalid_request', 'headers', '/content-length'],
    ['FST_ERR_BAD_URL', 400, 'invalid_request', 'url', '/'],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'uri_too_long', 'params', '/'],
  ] as const)('answers Fastify’s %s as %i %s at %s %s', (fstCode, status, code, where, path) => {
    const Refusal = errorCodes[fstCode] as unknown as new (...args: string[]) => Error;
    const answer = errorReply(new Refusal(URL_WITH_KEY));
    expect([answer.status, answer.body.error.code]).toEqual([status, code]);
    expect(answer.body.error.issues).toEqual([expect.objectContaining({ in: where, path })]);
    expect(JSON.stringify(answer)).not.toContain('sg_secret');
  });

  it('answers any other 4xx with its status in our words, and anything else 500 `internal`', () => {
    const other = Object.assign(new Error(`bad ${URL_WITH_KEY}`), { statusCode: 406 });
    expect(errorReply(other)).toEqual({
      status: 406,
      body: { error: { code: 'bad_request', message: 'the request was refused: Not Acceptable' } },
    });
    for (const thrown of [new Error('boom'), new TypeError('x'), 'a string', null, undefined]) {
      expect(errorReply(thrown)).toEqual({
        status: 500,
        body: { error: { code: 'internal', message: 'internal error' } },
      });
    }
    expect(errorReply(new AppError(503, 'projection_lagging', 'retry')).status).toBe(503);
  });
});

describe('noRouteReply', () => {
  it('is a 404 for a path nothing serves and a 405 with `allow` for a path served otherwise', () => {
    expect(noRouteReply('GET', []).status).toBe(404);
    const answer = noRouteReply('DELETE', ['GET', 'POST']);
    expect([answer.status, answer.headers]).toEqual([405, { allow: 'GET, POST' }]);
    expect(answer.body.error.code).toBe('method_not_allowed');
  });
});

describe('clientErrorReply', () => {
  it('answers Node’s client errors in the envelope, as raw HTTP that closes the connection', () => {
    expect(clientErrorReply({ code: 'ECONNRESET' })).toBeNull();
    const cases = [
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout', 'body'],
      ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large', 'headers'],
      ['HPE_INVALID_METHOD', 400, 'bad_request', 'url'],
      ['HPE_INVALID_CONTENT_LENGTH', 400, 'bad_request', 'headers'],
      ['HPE_INVALID_CHUNK_SIZE', 400, 'bad_request', 'body'],
      [undefined, 400, 'bad_request', 'headers'],
    ] as const;
    for (const [code, status, envelopeCode, where] of cases) {
      const answer = clientErrorReply(code ? { code } : {})!;
      expect([answer.status, answer.body.error.code, answer.body.error.issues?.[0]?.in]).toEqual([
        status,
        envelopeCode,
        where,
      ]);
      const raw = rawHttpReply(answer);
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toContain('connection: close');
      expect(head).toContain(`content-length: ${Buffer.byteLength(body!)}`);
      expect(JSON.parse(body!)).toEqual(answer.body);
    }
  });
});
