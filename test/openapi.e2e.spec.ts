import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { documentedExamples } from '@stratagate/http';
import { describeBackend } from '@stratagate/store/testing';
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
interface Parameter {
  name: string;
  in: string;
  schema?: Json;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
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
  // A response of another media type keeps its examples on its schema.
  if (Array.isArray(media.schema?.examples)) found.push(...media.schema.examples);
  return found;
}

/**
 * The body of a request or response: JSON, or NDJSON where a file streams (a space's export).
 */
const bodyMedia = (content: Record<string, Media> | undefined): Media | undefined =>
  content?.['application/json'] ?? content?.['application/x-ndjson'];

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
        const media = bodyMedia(response.content);
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
      const media = bodyMedia(operation.requestBody!.content);
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
      ...examplesOf(bodyMedia(operation.requestBody?.content)).map((e) => ({ name, e })),
      ...Object.values(operation.responses ?? {}).flatMap((r) =>
        examplesOf(bodyMedia(r.content)).map((e) => ({ name, e })),
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

  it('names every operation: a stable, unique camelCase operationId', () => {
    const ids = operations.map(({ name, operation }) => [name, operation.operationId] as const);
    expect(ids.filter(([, id]) => !id || !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
    expect(Object.fromEntries(ids.map(([name, id]) => [id, name]))).toMatchObject({
      recordTurn: 'POST /v1/spaces/{spaceId}/turns',
      recall: 'POST /v1/spaces/{spaceId}/threads/{threadId}/recall',
      searchEvents: 'POST /v1/spaces/{spaceId}/threads/{threadId}/search/events',
      assessEvidence: 'POST /v1/spaces/{spaceId}/threads/{threadId}/assess',
      adoptEvidence: 'POST /v1/spaces/{spaceId}/threads/{threadId}/adopt',
    });
  });

  it('npx openapi-typescript on the served document yields one named operation per route', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-openapi-'));
    try {
      const input = join(dir, 'openapi.json');
      const output = join(dir, 'api.d.ts');
      await writeFile(input, JSON.stringify(doc));
      const bin = fileURLToPath(
        new URL('../node_modules/.bin/openapi-typescript', import.meta.url),
      );
      await promisify(execFile)(bin, [input, '--output', output]);
      const types = await readFile(output, 'utf8');
      expect(types).not.toMatch(/export type operations = Record<string, never>/);
      const start = types.indexOf('export interface operations {');
      expect(start).toBeGreaterThanOrEqual(0);
      const end = types.indexOf('\n}\n', start);
      const keys = [...types.slice(start, end).matchAll(/^ {4}([A-Za-z]+): \{/gm)].map((m) => m[1]);
      expect(keys.sort()).toEqual(operations.map((o) => o.operation.operationId).sort());
      // Each path's method refers to its named operation rather than an inline one.
      for (const { operation } of operations) {
        expect(types).toContain(`operations["${operation.operationId}"]`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("speaks the user's words: no rule ids in summaries or descriptions", () => {
    const texts = operations.flatMap(({ name, operation }) =>
      [operation.summary, operation.description].map((text) => ({ name, text: text ?? '' })),
    );
    expect(texts.filter(({ text }) => /MM-[A-Z]+/.test(text))).toEqual([]);
    expect(operations.filter((o) => !o.operation.summary?.trim()).map((o) => o.name)).toEqual([]);
  });

  it("bounds every integer by what it means: requests within a real range, never JSON's 2^53", () => {
    const problems: string[] = [];
    const visit = (schema: unknown, where: string, request: boolean) => {
      if (Array.isArray(schema)) {
        schema.forEach((s, i) => visit(s, `${where}/${i}`, request));
        return;
      }
      if (schema === null || typeof schema !== 'object') return;
      const s = schema as Json;
      if (s.type === 'integer') {
        for (const bound of ['minimum', 'maximum'] as const) {
          const value = s[bound] as number | undefined;
          if (value !== undefined && Math.abs(value) >= Number.MAX_SAFE_INTEGER) {
            problems.push(`${where}: ${bound} ${value}`);
          }
        }
        if (s.minimum === undefined) problems.push(`${where}: no minimum`);
        if (request && s.maximum === undefined) problems.push(`${where}: no maximum`);
      }
      for (const [key, value] of Object.entries(s)) {
        if (key !== 'examples' && key !== 'example') visit(value, `${where}/${key}`, request);
      }
    };
    for (const { name, operation } of operations) {
      for (const p of operation.parameters ?? [])
        visit(p.schema, `${name} ${p.in} ${p.name}`, true);
      visit(operation.requestBody, `${name} body`, true);
      visit(operation.responses, `${name} responses`, false);
    }
    expect(problems).toEqual([]);
  });

  it('refuses unknown fields: every request body and query string is a closed object', () => {
    const open: string[] = [];
    for (const { name, operation } of operations) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body && body.additionalProperties !== false) open.push(`${name} body`);
    }
    expect(open).toEqual([]);
  });
});
