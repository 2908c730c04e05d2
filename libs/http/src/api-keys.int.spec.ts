import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '@stratagate/store';
import { describeBackend, openTestDatabase } from '@stratagate/store/testing';
import { ApiKeyStore } from './api-keys.ts';

describe(`API keys (${describeBackend()})`, () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase('api_keys');
    await new ApiKeyStore(database.db).migrate();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('processes starting together on a fresh database all migrate (no DDL race)', async () => {
    const fresh = await openTestDatabase('api_keys_race');
    try {
      // On a server each call runs on its own pooled connection, as separate processes would.
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => new ApiKeyStore(fresh.db).migrate()),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const store = new ApiKeyStore(fresh.db);
      const { key } = await store.create('acme', 'after the race');
      expect(await store.authenticate(key)).not.toBeNull();
    } finally {
      await fresh.close();
    }
  });

  it('binds a key to its tenant, stores only its hash and refuses unknown keys', async () => {
    const store = new ApiKeyStore(database.db);
    const { key, keyId } = await store.create('acme', 'spec');
    expect(await store.authenticate(key)).toEqual({ tenantId: 'acme', keyId });
    expect(await store.authenticate(`${key}x`)).toBeNull();
    const stored = await database.db
      .withSchema('auth')
      .selectFrom('api_keys' as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  it('a key revoked by another process stops working here once the cache entry expires', async () => {
    let clock = 1_000_000;
    const server = new ApiKeyStore(database.db, { cacheTtlMs: 5_000, now: () => clock });
    const cli = new ApiKeyStore(database.db);
    const { key, keyId } = await server.create('acme', 'to revoke');
    expect(await server.authenticate(key)).toEqual({ tenantId: 'acme', keyId });
    expect(await cli.revoke(keyId)).toBe(true);
    // Within the TTL the server still trusts its cached verification...
    clock += 4_000;
    expect(await server.authenticate(key)).not.toBeNull();
    // ...and asks the database again once it has expired.
    clock += 1_001;
    expect(await server.authenticate(key)).toBeNull();
    // Revoked in this process: refused at once.
    const other = await server.create('acme', 'second');
    expect(await server.authenticate(other.key)).not.toBeNull();
    await server.revoke(other.keyId);
    expect(await server.authenticate(other.key)).toBeNull();
  });
});
