import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { documentedExamples } from '@stratagate/http';
import { describeBackend } from '@stratagate/store';
import { startTestNode, type TestNode } from './harness.ts';

/*
 * The API contract as published (issue 4 item 6): every /v1 operation in /openapi.json has a
 * success response with a schema, an example for each request body and each success response,
 * the shared error answers and the bearer key; the docs page serves the same document. Everything
 * is read from the document itself, so a route added without a response schema or an example
 * fails here without this file having to list it.
 */

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
  security?: Record<string, string[]>[];
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, Json> };
  security?: Record<string, string[]>[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every example of a media type object, in whichever form @fastify/swagger put it. */
function examplesOf(media: Media | undefined): unknown[] {
  if (!media) return [];
  const found: unknown[] = [];
  if (media.example !== undefined) found.push(media.example);
  for (const e of Object.values(media.examples ?? {})) found.push(e.value);
  if (media.schema?.example !== undefined) found.push(media.schema.example);
  return found;
}

describe(`OpenAPI document and docs page (${describeBackend()})`, () => {
  let t: TestNode;
  let doc: OpenApiDocument;
  let operations: { name: string; operation: Operation }[];

  beforeAll(async () => {
    t = await startTestNode('openapi');
    const res = await t.node.http!.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
    operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
      );
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('lists the /v1 operations of both roles', () => {
    const names = operations.map((o) => o.name);
    expect(names.length).toBeGreaterThanOrEqual(20);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /v1/spaces/{spaceId}/turns',
        'GET /v1/spaces/{spaceId}/threads/{threadId}/context',
        'POST /v1/spaces/{spaceId}/threads/{threadId}/remember',
      ]),
    );
  });

  it('gives every /v1 operation a 2xx response with a described JSON schema and an example', () => {
    const problems: string[] = [];
    for (const { name, operation } of operations) {
      const success = Object.entries(operation.responses ?? {}).filter(([status]) =>
        /^2\d\d$/.test(status),
      );
      if (success.length === 0) problems.push(`${name}: no 2xx response`);
      for (const [status, response] of success) {
        const media = response.content?.['application/json'];
        if (!media?.schema || Object.keys(media.schema).length === 0) {
          problems.push(`${name} ${status}: no response schema`);
        }
        if (!response.description || response.description === 'Default Response') {
          problems.push(`${name} ${status}: no description`);
        }
        if (examplesOf(media).length === 0) problems.push(`${name} ${status}: no example`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every request body a JSON schema and an example', () => {
    const problems: string[] = [];
    const withBody = operations.filter((o) => o.operation.requestBody);
    expect(withBody.length).toBeGreaterThanOrEqual(10);
    for (const { name, operation } of withBody) {
      const media = operation.requestBody!.content?.['application/json'];
      if (!media?.schema) problems.push(`${name}: no request body schema`);
      if (examplesOf(media).length === 0) problems.push(`${name}: no request body example`);
    }
    expect(problems).toEqual([]);
  });

  it('documents the shared error answers in the ErrorBody shape', () => {
    const problems: string[] = [];
    for (const { name, operation } of operations) {
      const responses = operation.responses ?? {};
      const required = ['400', '401', '500', ...(operation.requestBody ? ['413'] : [])];
      for (const status of required) {
        if (!responses[status]) problems.push(`${name}: no ${status} response`);
      }
      for (const [status, response] of Object.entries(responses)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const media = response.content?.['application/json'];
        const error = (media?.schema?.properties as Json | undefined)?.error as Json | undefined;
        const fields = Object.keys((error?.properties as Json | undefined) ?? {});
        if (!fields.includes('code') || !fields.includes('message')) {
          problems.push(`${name} ${status}: not the ErrorBody shape`);
        }
        if (!response.description || response.description === 'Default Response') {
          problems.push(`${name} ${status}: no description`);
        }
        for (const example of examplesOf(media)) {
          if (typeof (example as { error?: { code?: unknown } }).error?.code !== 'string') {
            problems.push(`${name} ${status}: example is not an error body`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('requires the bearer API key on every /v1 operation', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    const bearer = Object.entries(schemes).filter(
      ([, s]) => s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer',
    );
    expect(bearer).toHaveLength(1);
    const [bearerName] = bearer[0]!;
    for (const { name, operation } of operations) {
      const security = operation.security ?? doc.security ?? [];
      expect(
        security.some((requirement) => bearerName in requirement),
        `${name} needs the bearer key`,
      ).toBe(true);
    }
  });

  it('only shows examples that match their zod schema exactly', () => {
    const registered = documentedExamples();
    expect(registered.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const { schema, io, example } of registered) {
      if (io === 'input') {
        const parsed = schema.safeParse(example);
        if (!parsed.success) problems.push(`request ${JSON.stringify(example)}: ${parsed.error}`);
      } else {
        // What the serializer does with a handler's answer: nothing may fail or be stripped.
        const encoded = z.safeEncode(schema, example);
        if (!encoded.success) {
          problems.push(`response ${JSON.stringify(example)}: ${encoded.error}`);
        } else if (!isDeepStrictEqual(JSON.parse(JSON.stringify(encoded.data)), example)) {
          problems.push(`response ${JSON.stringify(example)}: has keys the schema strips`);
        }
      }
    }
    expect(problems).toEqual([]);

    // And every example the document shows is one of those checked above.
    const shown = operations.flatMap(({ name, operation }) => [
      ...examplesOf(operation.requestBody?.content?.['application/json']).map((e) => ({
        name,
        e,
      })),
      ...Object.values(operation.responses ?? {}).flatMap((r) =>
        examplesOf(r.content?.['application/json']).map((e) => ({ name, e })),
      ),
    ]);
    const unchecked = shown.filter(
      ({ e }) => !registered.some((r) => isDeepStrictEqual(r.example, e)),
    );
    expect(unchecked.map(({ name, e }) => `${name}: ${JSON.stringify(e)}`)).toEqual([]);
  });

  it('serves the docs page, its assets and the same document without a key', async () => {
    const get = (url: string) => t.node.http!.inject({ method: 'GET', url });

    const page = await get('/docs');
    expect([200, 301, 302]).toContain(page.statusCode);
    const index = await get('/docs/');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toMatch(/text\/html/);
    expect(index.body).toMatch(/swagger/i);

    // Every stylesheet, script and icon the page links to is served.
    const assets = [...index.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(
      (m) => new URL(m[1]!, 'http://localhost/docs/').pathname,
    );
    expect(assets).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/swagger-ui-bundle\.js$/),
        expect.stringMatching(/swagger-ui\.css$/),
        expect.stringMatching(/swagger-initializer\.js$/),
      ]),
    );
    for (const asset of assets) {
      const res = await get(asset);
      expect(res.statusCode, asset).toBe(200);
      expect(res.rawPayload.length, asset).toBeGreaterThan(0);
    }

    // The initializer points Swagger UI at ./json: the very document /openapi.json serves.
    const initializer = await get('/docs/static/swagger-initializer.js');
    expect(initializer.body).toContain("resolveUrl('./json')");
    const spec = await get('/docs/json');
    expect(spec.statusCode).toBe(200);
    expect(spec.json()).toEqual(doc);
  });
});
