import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '@stratagate/http';
import type { TestNode } from '../harness.ts';
import { httpRequest, rawRequest, type RawAnswer } from '../support/raw-http.ts';

/*
 * Bad requests derived from the served OpenAPI document, for every operation: each family below
 * breaks one thing of an otherwise valid request (the operation's documented example, with ids
 * that exist in a prepared space). They go over a real socket, so Node's parser, Fastify's router
 * and body parsing, and the app all answer. Every answer must be below 500 and, when an error,
 * the documented envelope; after a 4xx the prepared space must be as before.
 */

type JsonSchema = {
  type?: string;
  pattern?: string;
  enum?: unknown[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
};

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the document, and a valid request to it to break. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  params: Parameter[];
  query: Parameter[];
  /** The first documented request example, when the operation takes a body. */
  body?: unknown;
}

/** Ids that exist in the prepared space, by path parameter name. */
export type Fixture = Record<string, string>;

export interface FuzzCase {
  family: Family;
  /** What was broken, for the report of a failing case. */
  what: string;
  request: Buffer;
}

/** A case as fast-check reports it: what was broken and the start of the request sent. */
function described(fuzzCase: FuzzCase): FuzzCase {
  return Object.assign(fuzzCase, {
    [fc.toStringMethod]: () =>
      `${fuzzCase.family}: ${fuzzCase.what}\n${JSON.stringify(fuzzCase.request.subarray(0, 400).toString('latin1'))}`,
  });
}

export const FAMILIES = [
  'bad-id',
  'valid-id',
  'body-value',
  'raw-body',
  'content-type',
  'query',
  'headers',
  'method',
  'malformed-http',
] as const;
export type Family = (typeof FAMILIES)[number];

/** A secret a client puts where it does not belong; no answer may repeat it. */
export const QUERY_SECRET = 'sg_fuzzsecret0000_DoNotEchoThisKeyFromTheQueryStringEver';

const ROOT = join(import.meta.dirname, '..', '..');

/** The codes docs/api-errors.md lists: every error answer must carry one of them. */
export function documentedCodes(): Set<string> {
  const text = readFileSync(join(ROOT, 'docs/api-errors.md'), 'utf8');
  return new Set([...text.matchAll(/^\| `([a-z_]+)`\s*\|/gm)].map((m) => m[1]!));
}

/** Every operation of the served document. */
export function operationsOf(doc: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as Parameter[];
      const content = (
        op.requestBody as
          | {
              content?: Record<
                string,
                { example?: unknown; examples?: Record<string, { value: unknown }> }
              >;
            }
          | undefined
      )?.content?.['application/json'];
      const example =
        content === undefined
          ? undefined
          : 'example' in content
            ? content.example
            : Object.values(content.examples ?? {})[0]?.value;
      operations.push({
        id: String(op.operationId),
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'path'),
        query: parameters.filter((p) => p.in === 'query'),
        ...(content ? { body: example ?? {} } : {}),
      });
    }
  }
  return operations;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods the document serves at each path. */
function methodsByPath(operations: Operation[]): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const op of operations) {
    byPath.set(op.path, (byPath.get(op.path) ?? new Set()).add(op.method));
  }
  return byPath;
}

/** The value of a path parameter in a valid request. */
function validParam(param: Parameter, fixture: Fixture): string {
  return fixture[param.name] ?? String(param.schema.enum?.[0] ?? 'fuzz-id-1');
}

/** Percent-encodes every byte of the UTF-8 form of `text` (a lone surrogate becomes U+FFFD). */
const encodeBytes = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

function pathWith(op: Operation, fixture: Fixture, override: Record<string, string> = {}) {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name in override) return override[name]!;
    return encodeURIComponent(
      validParam(
        op.params.find((p) => p.name === name)!,
        fixture,
      ),
    );
  });
}

/** Ids the parameter's pattern refuses, and some no pattern could allow. */
function badId(param: Parameter): fc.Arbitrary<string> {
  const pattern = param.schema.pattern ? new RegExp(param.schema.pattern) : null;
  const longest = param.schema.pattern
    ? Number(/\{0,(\d+)\}/.exec(param.schema.pattern)?.[1] ?? 200) + 1
    : 200;
  return fc.oneof(
    fc.constantFrom(
      ' ',
      '..',
      '../../etc/passwd',
      'my thread',
      'x/y',
      '\u0000',
      'a\u0000b',
      '\ud800',
      '-leading',
      '.dot',
      'ünï',
      '%',
      '%zz',
      '%00',
      '\r\nx-injected: 1',
    ),
    fc
      .string({ unit: 'binary', minLength: 1, maxLength: 30 })
      .filter((s) => (pattern ? !pattern.test(s) : true)),
    fc.integer({ min: longest + 1, max: 4_000 }).map((n) => 'a'.repeat(n)),
  );
}

/** A value for one place in a body that the API must refuse (or, for some, may take). */
const badValue: fc.Arbitrary<{ value: unknown; deep?: number; what: string }> = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => ({ value: `${s}\u0000${s}`, what: 'a NUL' })),
  fc
    .constantFrom('\ud800', '\udfff', 'a\udbffb', '\udc00\ud800')
    .map((value) => ({ value, what: 'a lone surrogate' })),
  fc
    .constantFrom(4_001, 200_001, 1_100_000, 2_200_000)
    .map((n) => ({ value: 'x'.repeat(n), what: `a string of ${n}` })),
  fc
    .integer({ min: MAX_JSON_DEPTH - 2, max: 300_000 })
    .map((deep) => ({ value: DEEP_MARK, deep, what: `nesting ${deep} deep` })),
  fc
    .oneof(
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -1, 0.5, 1e-300),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
      fc.string({ maxLength: 20 }),
    )
    .map((value) => ({ value, what: 'another type' })),
);

const DEEP_MARK = '\u0001deep\u0001';

/** Every place in a JSON value: the containers' paths, as key lists. */
function containers(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const inner = Object.entries(value).flatMap(([k, v]) =>
    containers(v, [...path, Array.isArray(value) ? Number(k) : k]),
  );
  return [path, ...inner];
}

function setAt(root: unknown, path: (string | number)[], key: string | number, value: unknown) {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path) at = at[k] as Record<string | number, unknown>;
  at[key] = value;
  return copy;
}

/** JSON text of `body`, the deep mark replaced by that many nested arrays. */
function serialize(body: unknown, deep?: number): string {
  const text = JSON.stringify(body);
  if (!deep) return text;
  return text.replace(JSON.stringify(DEEP_MARK), `${'['.repeat(deep)}${']'.repeat(deep)}`);
}

/** The bad requests of one family against one operation (null: the family does not apply). */
export function familyCases(
  family: Family,
  op: Operation,
  operations: Operation[],
  fixture: Fixture,
  key: string,
): fc.Arbitrary<FuzzCase> | null {
  const hasBody = op.method === 'POST' || op.method === 'PUT';
  const validBody = op.body === undefined ? undefined : JSON.stringify(op.body);
  const request = (options: {
    method?: string;
    path?: string;
    query?: string;
    body?: string | Buffer;
    contentType?: string | null;
    headers?: Record<string, string>;
    key?: string;
  }) =>
    httpRequest(
      options.method ?? op.method,
      `${options.path ?? pathWith(op, fixture)}${options.query ?? ''}`,
      {
        key: options.key ?? key,
        ...(options.body !== undefined
          ? { body: options.body }
          : validBody !== undefined
            ? { body: validBody }
            : {}),
        ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      },
    );
  const withSecret = fc.constantFrom('', `?api_key=${QUERY_SECRET}`);

  switch (family) {
    case 'bad-id': {
      if (op.params.length === 0) return null;
      return fc.tuple(fc.constantFrom(...op.params), fc.boolean()).chain(([param, encode]) =>
        badId(param).map((id) => ({
          family,
          what: `${param.name} = ${JSON.stringify(id.slice(0, 60))}${encode ? ' (encoded)' : ''}`,
          request: request({
            path: pathWith(op, fixture, { [param.name]: encode ? encodeBytes(id) : id }),
          }),
        })),
      );
    }
    case 'valid-id': {
      const patterned = op.params.filter((p) => p.schema.pattern);
      if (patterned.length === 0) return null;
      return fc.constantFrom(...patterned).chain((param) =>
        fc.stringMatching(new RegExp(param.schema.pattern!)).map((id) => ({
          family,
          what: `${param.name} = ${JSON.stringify(id.slice(0, 60))} (valid by the pattern)`,
          request: request({
            path: pathWith(op, fixture, { [param.name]: encodeBytes(id) }),
          }),
        })),
      );
    }
    case 'body-value': {
      if (op.body === undefined) return null;
      const places = containers(op.body);
      const whole = fc
        .constantFrom<unknown>([], 'text', 42, null, true, [op.body])
        .map((value) => ({
          body: JSON.stringify(value),
          what: `the body as ${JSON.stringify(value).slice(0, 40)}`,
        }));
      const field = fc
        .tuple(
          fc.constantFrom(...(places.length > 0 ? places : [[]])),
          fc.oneof(
            fc.string({ maxLength: 12 }),
            fc.constantFrom('user_id', '__proto__', 'constructor'),
          ),
          fc.nat(),
          badValue,
          fc.boolean(),
        )
        .map(([path, newKey, pick, bad, existing]) => {
          const container = path.reduce<unknown>(
            (at, k) => (at as Record<string | number, unknown>)[k],
            op.body,
          ) as Record<string, unknown> | unknown[];
          const keys = Object.keys(container);
          const target: string | number =
            existing && keys.length > 0
              ? Array.isArray(container)
                ? pick % keys.length
                : keys[pick % keys.length]!
              : Array.isArray(container)
                ? container.length
                : newKey;
          const body = serialize(setAt(op.body, path, target, bad.value), bad.deep);
          return { body, what: `${bad.what} at /${[...path, target].join('/')}` };
        });
      const missing = fc.constantFrom(...Object.keys(op.body as object)).map((k) => {
        const { [k]: _dropped, ...rest } = op.body as Record<string, unknown>;
        return { body: JSON.stringify(rest), what: `without ${k}` };
      });
      const arbitraries: fc.Arbitrary<{ body: string; what: string }>[] = [whole, field];
      if (Object.keys(op.body as object).length > 0) arbitraries.push(missing);
      return fc.oneof(...arbitraries).map(({ body, what }) => ({
        family,
        what,
        request: request({ body }),
      }));
    }
    case 'raw-body': {
      if (!hasBody) return null;
      const text = validBody ?? '{}';
      return fc
        .oneof(
          fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)),
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.constantFrom(
            '{"__proto__":{"polluted":1}}',
            '{"constructor":{"prototype":{"polluted":1}}}',
            '\ufeff{}',
            '{"a":1,}',
            'NaN',
            '[1,2',
            '{"a" 1}',
            '1e999',
            '"\\u0000"',
            '{"x":"\\ud800"}',
            `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
            `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
          ),
          fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        )
        .map((body) => ({
          family,
          what: `body ${JSON.stringify(body.toString().slice(0, 60))}`,
          request: request({ body }),
        }));
    }
    case 'content-type': {
      if (!hasBody) return null;
      return fc
        .constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=utf-16',
          'application/jsonx',
          'json',
          '',
          null,
          'application/json, text/plain',
          '*/*',
          'application/xml',
        )
        .map((contentType) => ({
          family,
          what: `content-type ${JSON.stringify(contentType)}`,
          request: request({ body: validBody ?? '{}', contentType }),
        }));
    }
    case 'query': {
      const names = [...op.query.map((p) => p.name), 'user_id', 'api_key', 'limit'];
      const value = fc.oneof(
        fc.constantFrom(
          '%00',
          '%zz',
          '%ED%A0%80',
          '-1',
          '1e9',
          'abc',
          '',
          '1.5',
          '99999999999999999999',
        ),
        fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'q'.repeat(n)),
        fc.string({ maxLength: 12 }).map(encodeBytes),
      );
      return fc
        .tuple(
          fc.array(fc.tuple(fc.constantFrom(...names), value), { minLength: 1, maxLength: 4 }),
          withSecret,
        )
        .map(([pairs, secret]) => {
          const query = `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}${secret ? `&${secret.slice(1)}` : ''}`;
          return { family, what: `query ${query.slice(0, 80)}`, request: request({ query }) };
        });
    }
    case 'headers': {
      return fc
        .tuple(
          fc.oneof(
            fc.constant({
              headers: { 'x-padding': 'p'.repeat(20_000) },
              key: key,
              what: 'a 20 KB header',
            }),
            fc.constantFrom(
              { headers: {}, key: '', what: 'no key' },
              { headers: {}, key: `${key}x`, what: 'a wrong key' },
              { headers: {}, key: 'sg_000000000000_' + 'x'.repeat(43), what: 'an unknown key' },
              { headers: { 'content-length': 'abc' }, key, what: 'a bad content-length' },
              { headers: { 'transfer-encoding': 'chunked' }, key, what: 'chunked without chunks' },
              { headers: { 'x-nul': 'a\u0000b' }, key, what: 'a NUL in a header' },
            ),
          ),
          withSecret,
        )
        .map(([h, secret]) => ({
          family,
          what: h.what,
          request: request({ headers: h.headers, key: h.key, query: secret }),
        }));
    }
    case 'method': {
      const served = methodsByPath(operations).get(op.path) ?? new Set();
      const others = METHODS.filter((m) => !served.has(m));
      return fc.tuple(fc.constantFrom(...others), withSecret).map(([method, secret]) => ({
        family,
        what: `method ${method}`,
        request: request({ method, query: secret }),
      }));
    }
    case 'malformed-http': {
      const path = pathWith(op, fixture);
      return fc
        .constantFrom(
          `${op.method} ${path}?api_key=${QUERY_SECRET} HTTX/9\r\n\r\n`,
          `${op.method} ${path} HTTP/1.1\r\nhost x\r\n\r\n`,
          `${op.method}  HTTP/1.1\r\n\r\n`,
          `${op.method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello`,
          `${op.method} ${path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
          `${op.method} ${path} HTTP/1.1\r\nhost: x\r\n\u0001bad: header\r\n\r\n`,
          `\u0000\u0001\u0002garbage\r\n\r\n`,
        )
        .map((raw) => ({
          family,
          what: `raw ${JSON.stringify(raw.slice(0, 60))}`,
          request: Buffer.from(raw, 'latin1'),
        }));
    }
  }
}

/** What a run saw, by operation and status. */
export interface FuzzCounts {
  cases: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  byFamily: Record<string, number>;
}

export const emptyCounts = (): FuzzCounts => ({
  cases: 0,
  byStatus: {},
  byOperation: {},
  byFamily: {},
});

/** The state of the prepared space a refused request must leave as it was. */
export async function spaceState(t: TestNode, spaceId: string, threadId: string) {
  const [status, events, context] = await Promise.all([
    t.request('GET', `/v1/spaces/${spaceId}/status`),
    t.request('GET', `/v1/spaces/${spaceId}/memory-events?status=all&limit=200`),
    t.request('GET', `/v1/spaces/${spaceId}/threads/${threadId}/context`),
  ]);
  return JSON.stringify([status.body, events.body, context.body]);
}

/** Why an answer breaks the contract, or null when it keeps it. */
export function contractBreach(
  answer: RawAnswer,
  fuzzCase: FuzzCase,
  codes: Set<string>,
): string | null {
  if (answer.status === 0) return 'the connection closed without an answer';
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.body.includes(QUERY_SECRET)) return 'the answer repeats the query string';
  if (fuzzCase.family === 'valid-id' && (answer.status === 400 || answer.status === 414)) {
    const issues = safeJson(answer.body)?.error?.issues ?? [];
    if (issues.some((i: { in?: string }) => i.in === 'params')) {
      return `an id valid by the document's pattern was refused: ${answer.body.slice(0, 300)}`;
    }
  }
  if (answer.status < 400) return null;
  if (!/^application\/json/.test(answer.headers['content-type'] ?? '')) {
    return `a ${answer.status} that is not JSON: ${answer.headers['content-type']}`;
  }
  const body = safeJson(answer.body);
  if (!body || Object.keys(body).join() !== 'error')
    return `not the envelope: ${answer.body.slice(0, 300)}`;
  const error = body.error;
  const extra = Object.keys(error).filter(
    (k) => !['code', 'message', 'issues', 'details'].includes(k),
  );
  if (extra.length > 0) return `unexpected fields ${extra.join(', ')}`;
  if (typeof error.code !== 'string' || !codes.has(error.code)) {
    return `a code docs/api-errors.md does not list: ${error.code}`;
  }
  if (typeof error.message !== 'string' || error.message === '') return 'no message';
  if (error.issues !== undefined) {
    const places = ['body', 'params', 'querystring', 'headers', 'url', undefined];
    for (const issue of error.issues as { in?: string; path?: unknown; message?: unknown }[]) {
      if (
        !places.includes(issue.in) ||
        typeof issue.path !== 'string' ||
        !issue.path.startsWith('/')
      ) {
        return `an issue without a place: ${JSON.stringify(issue)}`;
      }
      if (typeof issue.message !== 'string')
        return `an issue without a message: ${JSON.stringify(issue)}`;
    }
  }
  return null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The space (and thread) the erasing operations aim at; recreated after each erasure. */
const ERASABLE = 'fuzz-erasable';

async function postTurn(
  t: TestNode,
  spaceId: string,
  threadId: string,
  turnId: string,
  line: string,
  minute = 0,
): Promise<void> {
  const res = await t.request('POST', `/v1/spaces/${spaceId}/turns`, {
    turnId,
    threadId,
    occurredAt: new Date(Date.UTC(2023, 4, 8, 10, minute)).toISOString(),
    messages: [
      { role: 'user', name: 'Caroline', content: line },
      { role: 'assistant', content: `Noted: ${line}` },
    ],
  });
  if (res.status !== 202) throw new Error(`turn: ${JSON.stringify(res.body)}`);
}

export interface FuzzTarget {
  t: TestNode;
  port: number;
  spaceId: string;
  threadId: string;
  fixture: Fixture;
}

/**
 * Runs `runs` cases of every family against every operation: asserts each answer (throws, with
 * fast-check's report of the smallest failing case), counts them, and checks the prepared space
 * after every 4xx. After a 2xx that may have changed the space, waits for it to settle and takes
 * its state again.
 */
export async function fuzzOperations(
  target: FuzzTarget,
  options: { runs: number; seed?: number; only?: (op: Operation) => boolean },
  counts: FuzzCounts = emptyCounts(),
): Promise<FuzzCounts> {
  const { t, port, spaceId, threadId, fixture } = target;
  const doc = (await t.node.http!.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations = operationsOf(doc);
  const codes = documentedCodes();
  let state = await spaceState(t, spaceId, threadId);
  let erasableTurns = 0;
  for (const op of operations.filter(options.only ?? (() => true))) {
    // Erasures aim at a space of their own: a valid one removes it, and the target must stay.
    const erases = op.method === 'DELETE';
    const opFixture = erases ? { ...fixture, spaceId: ERASABLE, threadId: ERASABLE } : fixture;
    for (const family of FAMILIES) {
      const cases = familyCases(family, op, operations, opFixture, t.key);
      if (!cases) continue;
      await fc.assert(
        fc.asyncProperty(cases.map(described), async (fuzzCase) => {
          const answer = await rawRequest(port, fuzzCase.request, { timeoutMs: 20_000 });
          counts.cases++;
          counts.byStatus[answer.status] = (counts.byStatus[answer.status] ?? 0) + 1;
          counts.byOperation[op.id] = (counts.byOperation[op.id] ?? 0) + 1;
          counts.byFamily[family] = (counts.byFamily[family] ?? 0) + 1;
          const breach = contractBreach(answer, fuzzCase, codes);
          if (breach) throw new Error(`${op.id} ${family} (${fuzzCase.what}): ${breach}`);
          if (answer.status >= 400) {
            const after = await spaceState(t, spaceId, threadId);
            if (after !== state) {
              throw new Error(
                `${op.id} ${family} (${fuzzCase.what}): answered ${answer.status} but changed the space`,
              );
            }
          } else if (erases) {
            // Whatever was erased, give the next case a space with a thread to erase again.
            await postTurn(
              t,
              ERASABLE,
              ERASABLE,
              `erasable-${++erasableTurns}`,
              'A line to erase.',
            );
            await t.settle(ERASABLE);
          } else {
            await t.settle(spaceId);
            state = await spaceState(t, spaceId, threadId);
          }
        }),
        { numRuns: options.runs, ...(options.seed !== undefined ? { seed: options.seed } : {}) },
      );
    }
  }
  return counts;
}

/**
 * The space the fuzzing aims at: a sealed, summarised block and an open tail in `threadId`,
 * their memory events and graph nodes, and the ids of each as the path parameters' values. Turns
 * the fuzzing gets accepted from then on stay in the open tail (block size 200), so the space
 * settles quickly after one.
 */
export async function prepareTarget(t: TestNode, port: number): Promise<FuzzTarget> {
  const spaceId = 'fuzz-target';
  const threadId = 'fuzz-thread';
  const put = await t.request('PUT', `/v1/spaces/${spaceId}/settings`, { blockSize: 2 });
  if (put.status !== 200) throw new Error(`settings: ${JSON.stringify(put.body)}`);
  const lines = [
    'Caroline moved Project Atlas to pnpm last week; the CI must be verified after it.',
    'Melanie started pottery classes in Berlin on Tuesday.',
    'The team decided to release Atlas 2.0 on June 1.',
  ];
  for (const [i, line] of lines.entries()) {
    await postTurn(t, spaceId, threadId, `fuzz-turn-${i}`, line, i);
  }
  await t.settle(spaceId);
  await postTurn(t, ERASABLE, ERASABLE, 'erasable-0', 'A line to erase.');
  await t.settle(ERASABLE);
  await t.request('PUT', `/v1/spaces/${spaceId}/settings`, { blockSize: 200 });
  await t.settle(spaceId);
  const context = await t.request('GET', `/v1/spaces/${spaceId}/threads/${threadId}/context`);
  const events = await t.request('GET', `/v1/spaces/${spaceId}/memory-events?limit=1`);
  const nodes = await t.request('GET', `/v1/spaces/${spaceId}/graph/nodes?limit=1`);
  return {
    t,
    port,
    spaceId,
    threadId,
    fixture: {
      spaceId,
      threadId,
      blockId: context.body.blocks?.[0]?.id ?? 'blk-none',
      eventId: events.body.events?.[0]?.id ?? 'evt-none',
      nodeId: nodes.body.nodes?.[0]?.id ?? 'node-none',
    },
  };
}
