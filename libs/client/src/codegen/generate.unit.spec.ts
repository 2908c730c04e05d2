import { describe, expect, it } from 'vitest';
import { indexOperations, parseErrorTable } from './generate.ts';

const json = (properties: Record<string, unknown> = {}) => ({
  content: { 'application/json': { schema: { type: 'object', properties } } },
});

describe('the operation index read from an OpenAPI document', () => {
  it('lists /v1 operations with their parameters, media types and idempotency key', () => {
    const doc = {
      paths: {
        '/healthz': { get: { operationId: 'health' } },
        '/v1/spaces/{spaceId}/turns': {
          post: {
            operationId: 'recordTurn',
            summary: 'Record a turn',
            parameters: [{ name: 'spaceId', in: 'path' }],
            requestBody: json({ turnId: { type: 'string', 'x-idempotency-key': true } }),
            responses: { 202: json() },
          },
        },
        '/v1/spaces/{spaceId}/export': {
          get: {
            operationId: 'exportSpace',
            parameters: [
              { name: 'spaceId', in: 'path' },
              { name: 'limit', in: 'query' },
            ],
            responses: { 200: { content: { 'application/x-ndjson': {} } }, 404: json() },
          },
        },
      },
    };
    expect(indexOperations(doc)).toEqual([
      {
        operationId: 'recordTurn',
        method: 'POST',
        path: '/v1/spaces/{spaceId}/turns',
        summary: 'Record a turn',
        pathParams: ['spaceId'],
        queryParams: [],
        hasBody: true,
        requestType: 'application/json',
        responseType: 'application/json',
        idempotencyField: 'turnId',
      },
      {
        operationId: 'exportSpace',
        method: 'GET',
        path: '/v1/spaces/{spaceId}/export',
        summary: '',
        pathParams: ['spaceId'],
        queryParams: ['limit'],
        hasBody: false,
        requestType: null,
        responseType: 'application/x-ndjson',
        idempotencyField: null,
      },
    ]);
  });

  it('takes a field named like a key as a key only when the document marks it', () => {
    const doc = {
      paths: {
        '/v1/p': { post: { operationId: 'propose', requestBody: json({ turnId: {} }) } },
      },
    };
    expect(indexOperations(doc)[0]!.idempotencyField).toBeNull();
  });

  it('refuses an operation without an operationId, or with two keys', () => {
    expect(() => indexOperations({ paths: { '/v1/x': { get: {} } } })).toThrow(/operationId/);
    const mark = { 'x-idempotency-key': true };
    const two = {
      paths: { '/v1/x': { post: { operationId: 'x', requestBody: json({ a: mark, b: mark }) } } },
    };
    expect(() => indexOperations(two)).toThrow(/at most one/);
  });
});

describe('the error codes read from docs/api-errors.md', () => {
  it('reads code and status from each table row, and nothing else', () => {
    const markdown = [
      '| code | status | when |',
      '| --- | --- | --- |',
      '| `invalid_request`   | 400    | a field is invalid |',
      '| `space_not_found` | 404 | no such space |',
      'Text mentioning `internal` and 500.',
    ].join('\n');
    expect(parseErrorTable(markdown)).toEqual([
      ['invalid_request', 400],
      ['space_not_found', 404],
    ]);
  });
});
