import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '@stratagate/http';
import type { Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { adminApp, localKeys, remoteKeys, startAdminServer, type AdminServer } from './keys.ts';

describe(`the local admin listener for keys (${describeBackend()})`, () => {
  let database: Database;
  let store: ApiKeyStore;
  const token = 'a-test-token-of-enough-length-0123456789';

  beforeAll(async () => {
    database = await openTestDatabase('admin_keys');
    store = new ApiKeyStore(database.db);
    await store.migrate();
  });
  afterAll(async () => {
    await database?.close();
  });

  const app = () => adminApp(localKeys(store, database.db), token);
  const auth = { authorization: `Bearer ${token}` };

  it('refuses a request without the token, or with another one, in the error envelope', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }]) {
      const res = await app().inject({ method: 'GET', url: '/admin/v1/keys', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: { code: 'unauthorized', message: 'missing or wrong admin token' },
      });
    }
  });

  it('refuses unknown fields and bad tenants with 400, creating nothing', async () => {
    const before = (await localKeys(store, database.db).list()).length;
    const unknown = await app().inject({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: auth,
      payload: { tenant: 'acme', user_id: 'x' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('invalid_request');
    const badTenant = await app().inject({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: auth,
      payload: { tenant: '../etc' },
    });
    expect(badTenant.statusCode).toBe(400);
    expect(badTenant.json().error.message).toContain("invalid tenant id '../etc'");
    expect((await localKeys(store, database.db).list()).length).toBe(before);
  });

  it('creates, lists and revokes over loopback; the store sees each change at once', async () => {
    let server: AdminServer | null = null;
    try {
      server = await startAdminServer(localKeys(store, database.db));
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const keys = remoteKeys(server);
      const made = await keys.create('acme', 'from the CLI');
      expect(made.tenant).toBe('acme');
      expect(await store.authenticate(made.key)).toEqual({ tenantId: 'acme', keyId: made.keyId });
      const listed = await keys.list();
      expect(listed.find((k) => k.keyId === made.keyId)).toMatchObject({
        tenant: 'acme',
        label: 'from the CLI',
        revokedAt: null,
      });
      expect(JSON.stringify(listed)).not.toContain(made.key);
      expect(await keys.revoke(made.keyId)).toBe(true);
      expect(await store.authenticate(made.key)).toBeNull();
      expect(await keys.revoke(made.keyId)).toBe(false);
      await expect(remoteKeys({ url: server.url, token: 'wrong' }).list()).rejects.toThrow(
        /the running server refused: missing or wrong admin token/,
      );
    } finally {
      await server?.close();
    }
  });
});
