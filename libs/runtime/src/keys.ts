import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorReply, noRouteReply, type ApiKeyStore } from '@stratagate/http';
import type { AnyDb } from '@stratagate/store';

/** An API key as `keys list` shows it: never the key itself, which is stored only hashed. */
export interface KeyInfo {
  keyId: string;
  tenant: string;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * What `stratagate keys` does, on the store directly (nothing else has the directory open, or a
 * Postgres server) or through the running server that owns an embedded directory (ADR 0033).
 */
export interface KeyOperations {
  create(tenant: string, label: string): Promise<{ keyId: string; key: string; tenant: string }>;
  revoke(keyId: string): Promise<boolean>;
  list(): Promise<KeyInfo[]>;
}

/** Key operations on the log's database (where keys live, ADR 0030) through `apiKeys`. */
export function localKeys(apiKeys: ApiKeyStore, db: AnyDb): KeyOperations {
  return {
    async create(tenant, label) {
      const { key, keyId } = await apiKeys.create(tenant, label);
      return { key, keyId, tenant };
    },
    revoke: (keyId) => apiKeys.revoke(keyId),
    async list() {
      const rows = await db
        .withSchema('auth')
        .selectFrom('api_keys')
        .select(['key_id', 'tenant_id', 'label', 'created_at', 'revoked_at'])
        .orderBy('created_at')
        .orderBy('key_id')
        .execute();
      return rows.map((r) => ({
        keyId: r.key_id as string,
        tenant: r.tenant_id as string,
        label: r.label as string,
        createdAt: new Date(r.created_at as string | Date).toISOString(),
        revokedAt: r.revoked_at ? new Date(r.revoked_at as string | Date).toISOString() : null,
      }));
    },
  };
}

const CreateBody = z
  .object({
    tenant: z.string().min(1).max(64),
    label: z.string().min(1).max(200).default('cli'),
  })
  .strict();
const KeyIdParam = z.object({ keyId: z.string().regex(/^[A-Za-z0-9]{1,64}$/) }).strict();

/** The local admin listener of a serving process that owns an embedded directory (ADR 0033). */
export interface AdminServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

/**
 * Serves `ops` on 127.0.0.1 at a port of the system's choosing, to callers that present `token`:
 * the serving process writes both into its lock file (mode 0600), so whoever can read the data
 * directory can ask, and nobody else. It is a separate listener so that it is never reachable
 * where the API is published (`STRATAGATE_HOST=0.0.0.0`).
 */
export async function startAdminServer(
  ops: KeyOperations,
  token = randomBytes(32).toString('base64url'),
): Promise<AdminServer> {
  const app = adminApp(ops, token);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('admin listener has no port');
  return { url: `http://127.0.0.1:${address.port}`, token, close: () => app.close() };
}

const envelope = (code: string, message: string, issues?: unknown) => ({
  error: { code, message, ...(issues ? { issues } : {}) },
});

export function adminApp(ops: KeyOperations, token: string): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 });
  const expected = digest(token);
  app.addHook('onRequest', async (request, reply) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      return reply.code(401).send(envelope('unauthorized', 'missing or wrong admin token'));
    }
  });
  app.setErrorHandler((error: unknown, _request, reply) => {
    if (error instanceof z.ZodError) {
      return reply.code(400).send(
        envelope(
          'invalid_request',
          'the request does not match the schema',
          error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        ),
      );
    }
    // The key store refuses a malformed tenant id with a plain error that names it.
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && /invalid tenant id/.test(message)) {
      return reply.code(400).send(envelope('invalid_request', message));
    }
    // Fastify's own refusals (a malformed body, a wrong content type, a body over the limit) and
    // anything unexpected, as the API answers them.
    const answer = errorReply(error);
    return reply.code(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const answer = noRouteReply(request.method, []);
    return reply.code(answer.status).send(answer.body);
  });
  app.get('/admin/v1/keys', async () => ({ keys: await ops.list() }));
  app.post('/admin/v1/keys', async (request, reply) => {
    const body = CreateBody.parse(request.body ?? {});
    return reply.code(201).send(await ops.create(body.tenant, body.label));
  });
  app.post('/admin/v1/keys/:keyId/revoke', async (request) => {
    const { keyId } = KeyIdParam.parse(request.params);
    return { keyId, revoked: await ops.revoke(keyId) };
  });
  return app;
}

/** The key operations of the serving process that advertised `admin` in its lock file. */
export function remoteKeys(admin: { url: string; token: string }): KeyOperations {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${admin.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await res.json()) as T & { error?: { code: string; message: string } };
    if (!res.ok) {
      throw new Error(
        `the running server refused: ${answer.error?.message ?? `HTTP ${res.status}`}`,
      );
    }
    return answer;
  };
  return {
    create: (tenant, label) => call('POST', '/admin/v1/keys', { tenant, label }),
    revoke: async (keyId) =>
      (
        await call<{ revoked: boolean }>(
          'POST',
          `/admin/v1/keys/${encodeURIComponent(keyId)}/revoke`,
        )
      ).revoked,
    list: async () => (await call<{ keys: KeyInfo[] }>('GET', '/admin/v1/keys')).keys,
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();
