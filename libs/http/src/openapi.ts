import type { z } from 'zod';
import { ErrorBody } from './schemas.ts';

/*
 * OpenAPI documentation helpers. Examples ride on zod metadata (`.meta({ examples })`): the zod
 * type provider's `jsonSchemaTransform` copies them into the JSON schema and @fastify/swagger
 * lifts a top-level `examples` array onto the media type (`example` for one, `examples` for
 * several), which is where Swagger UI shows them. Examples are typed against their schema and
 * recorded here, so a test can check each one with zod at run time as well.
 */

export interface DocumentedExample {
  schema: z.ZodType;
  /** `input`: a request as a client sends it; `output`: a response as the server sends it. */
  io: 'input' | 'output';
  example: unknown;
}

const documented: DocumentedExample[] = [];

/** Every example attached with `requestSchema` or `responseSchema` so far. */
export function documentedExamples(): readonly DocumentedExample[] {
  return documented;
}

type NonEmpty<T> = [T, ...T[]];

/**
 * A request body schema with examples, typed as a client sends it: fields with defaults may be
 * left out.
 */
export function requestSchema<S extends z.ZodType>(
  schema: S,
  ...examples: NonEmpty<z.input<S>>
): S {
  const withExamples = schema.meta({ examples });
  for (const example of examples) documented.push({ schema: withExamples, io: 'input', example });
  return withExamples;
}

/**
 * A success response schema: `description` becomes the response's description in the document;
 * the examples are typed as the handler returns them.
 */
export function responseSchema<S extends z.ZodType>(
  schema: S,
  description: string,
  ...examples: NonEmpty<z.output<S>>
): S {
  const withExamples = schema.meta({ description, examples });
  for (const example of examples) documented.push({ schema: withExamples, io: 'output', example });
  return withExamples;
}

/**
 * Marks a request-body field as the operation's idempotency key: the same value with the same
 * request is answered as before and done once. The document shows it as `x-idempotency-key`,
 * which is how generated clients know which field to fill and keep across their retries.
 */
export function idempotencyKey<S extends z.ZodType>(schema: S): S {
  return schema.meta({ 'x-idempotency-key': true });
}

type ErrorShape = ErrorBody['error'];
type RouteErrorStatus = 403 | 404 | 409 | 413 | 422 | 503;
/** How a route documents one error status: its own description, and optionally its own example. */
export type ErrorDoc = true | string | { description: string; example: ErrorShape };

const defaultErrors: Record<400 | 401 | 415 | 500 | RouteErrorStatus, [string, ErrorShape]> = {
  400: [
    'Invalid request: a path parameter, query parameter or body field failed validation, or holds a NUL, an unpaired surrogate or nesting deeper than 64 levels; `issues` lists each field (`invalid_request`). A body that is not valid JSON is `invalid_json`.',
    {
      code: 'invalid_request',
      message: 'request body is invalid',
      issues: [
        {
          in: 'body',
          path: '/messages',
          message: 'Too small: expected array to have >=1 items',
        },
      ],
    },
  ],
  401: [
    'Missing or invalid API key: send `Authorization: Bearer <api key>` (`unauthorized`).',
    { code: 'unauthorized', message: 'missing or invalid API key' },
  ],
  403: ['Forbidden on this server.', { code: 'forbidden', message: 'forbidden' }],
  404: [
    'Not found in the tenant of the API key (`space_not_found`, …).',
    { code: 'space_not_found', message: "space 'project:acme' was not found" },
  ],
  409: ['Conflict with the current state.', { code: 'conflict', message: 'conflict' }],
  413: [
    'The request body exceeds the configured limit (`payload_too_large`).',
    { code: 'payload_too_large', message: 'request body exceeds the configured limit' },
  ],
  415: [
    'The body is not sent as `application/json` (`unsupported_media_type`).',
    {
      code: 'unsupported_media_type',
      message: 'send the request body as JSON, with content-type application/json',
      issues: [{ in: 'headers', path: '/content-type', message: 'must be application/json' }],
    },
  ],
  422: ['Well-formed but rejected.', { code: 'unprocessable', message: 'unprocessable' }],
  500: [
    'Unexpected server error (`internal`); details are in the server log only.',
    { code: 'internal', message: 'internal error' },
  ],
  503: [
    'The read model has not caught up with the log yet; retry shortly (`projection_lagging`).',
    {
      code: 'projection_lagging',
      message: 'the read model has not caught up yet; retry shortly',
    },
  ],
};

function errorSchema(description: string, example: ErrorShape) {
  const schema = ErrorBody.meta({ description, examples: [{ error: example }] });
  documented.push({ schema, io: 'output', example: { error: example } });
  return schema;
}

/**
 * The error responses of a /v1 route, all in the `ErrorBody` shape: 400 (validation), 401 (API
 * key) and 500 always, plus the statuses the route can answer, each with the route's own wording
 * (`true` keeps the generic one). A route that takes a body (it documents 413) also documents 415.
 */
export function errorResponses(
  specific: Partial<Record<RouteErrorStatus, ErrorDoc>> = {},
): Record<number, typeof ErrorBody> {
  const responses: Record<number, typeof ErrorBody> = {};
  for (const status of [400, 401] as const) {
    responses[status] = errorSchema(...defaultErrors[status]);
  }
  for (const [key, doc] of Object.entries(specific)) {
    const status = Number(key) as RouteErrorStatus;
    const [description, example] = defaultErrors[status];
    if (doc === true) responses[status] = errorSchema(description, example);
    else if (typeof doc === 'string') responses[status] = errorSchema(doc, example);
    else responses[status] = errorSchema(doc.description, doc.example);
  }
  if (responses[413]) responses[415] = errorSchema(...defaultErrors[415]);
  responses[500] = errorSchema(...defaultErrors[500]);
  return responses;
}
