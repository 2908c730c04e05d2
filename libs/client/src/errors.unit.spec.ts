import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  errorFromAnswer,
  InvalidRequestError,
  NotFoundError,
  ServerError,
  UnavailableError,
} from './errors.ts';
import { errorCodes } from './generated/error-codes.ts';

describe('errors from API answers', () => {
  it('maps the envelope to a typed error of its family, keeping code, message and issues', () => {
    const issues = [{ in: 'body' as const, path: '/limit', message: 'Too big' }];
    const error = errorFromAnswer(
      400,
      { error: { code: 'invalid_request', message: 'request body is invalid', issues } },
      'searchEvents',
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'request body is invalid',
      issues,
      operationId: 'searchEvents',
      retryable: false,
    });
  });

  it('gives every documented code a family by its status', () => {
    for (const [code, status] of Object.entries(errorCodes)) {
      const error = errorFromAnswer(status, { error: { code, message: code } });
      expect(error.code).toBe(code);
      expect(error.status).toBe(status);
      if (status === 404) expect(error).toBeInstanceOf(NotFoundError);
      if (status === 409) expect(error).toBeInstanceOf(ConflictError);
      if (status === 503) expect(error).toBeInstanceOf(UnavailableError);
    }
  });

  it('says which failures may be sent again', () => {
    const answer = (status: number, code: string) =>
      errorFromAnswer(status, { error: { code, message: code } });
    expect(answer(503, 'projection_lagging').retryable).toBe(true);
    expect(answer(409, 'version_conflict').retryable).toBe(true);
    expect(answer(409, 'turn_id_reused').retryable).toBe(false);
    expect(answer(500, 'internal').retryable).toBe(false);
  });

  it('keeps a code this client does not know yet, and reports a body that is no envelope', () => {
    const newer = errorFromAnswer(404, { error: { code: 'topic_not_found', message: 'x' } });
    expect(newer).toMatchObject({ code: 'topic_not_found', kind: 'not_found' });
    const page = errorFromAnswer(502, '<html>Bad gateway</html>');
    expect(page).toBeInstanceOf(ServerError);
    expect(page).toMatchObject({
      code: 'unexpected_response',
      details: '<html>Bad gateway</html>',
    });
  });
});
