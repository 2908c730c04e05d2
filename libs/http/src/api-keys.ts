import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { migrateUnderLock, type AnyDb } from '@stratagate/store';

/**
 * API keys are bound to one tenant and stored only as SHA-256 hashes: a key has 256 bits of
 * entropy, so a fast hash is enough (no password stretching needed) and lookups stay O(1).
 */
export interface Principal {
  tenantId: string;
  keyId: string;
}

export const API_KEY_PATTERN = /^sg_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): { key: string; keyId: string } {
  const keyId = randomBytes(6).toString('hex');
  return { key: `sg_${keyId}_${randomBytes(32).toString('base64url')}`, keyId };
}

export interface ApiKeyStoreOptions {
  /**
   * How long a verified key is trusted without asking the database again (default 5 s). A key
   * revoked by another process (`stratagate keys revoke`) stops working within this time.
   */
  cacheTtlMs?: number;
  now?: () => number;
}

export class ApiKeyStore {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: AnyDb,
    options: ApiKeyStoreOptions = {},
  ) {
    this.ttlMs = options.cacheTtlMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Idempotent DDL under the advisory lock every migration takes (`migrateUnderLock`): `if not
   * exists` alone races when processes start together on a fresh server (a duplicate-key error
   * from the catalog; tested).
   */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.db, 'stratagate.auth', 'migrate', async (trx) => {
      await sql`create schema if not exists auth`.execute(trx);
      await sql`create table if not exists auth.api_keys (
      key_id text primary key,
      tenant_id text not null,
      key_hash text not null unique,
      label text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(trx);
    });
  }

  /** Stores a key for the tenant; `key` is given when the operator supplies one (env/config). */
  async create(
    tenantId: string,
    label: string,
    key?: string,
  ): Promise<{ key: string; keyId: string }> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(tenantId)) {
      throw new Error(`invalid tenant id '${tenantId}': use letters, digits, '.', '_' or '-'`);
    }
    const made = key ? parseSuppliedKey(key) : generateApiKey();
    await this.db
      .withSchema('auth')
      .insertInto('api_keys')
      .values({ key_id: made.keyId, tenant_id: tenantId, key_hash: hashApiKey(made.key), label })
      .onConflict((oc) => oc.column('key_hash').doNothing())
      .execute();
    return made;
  }

  async count(): Promise<number> {
    const row = await this.db
      .withSchema('auth')
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async revoke(keyId: string): Promise<boolean> {
    const result = await this.db
      .withSchema('auth')
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    for (const [hash, c] of this.cache) if (c.principal.keyId === keyId) this.cache.delete(hash);
    return Number(result.numUpdatedRows) > 0;
  }

  async authenticate(key: string): Promise<Principal | null> {
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached && cached.until > this.now()) return cached.principal;
    this.cache.delete(hash);
    const row = await this.db
      .withSchema('auth')
      .selectFrom('api_keys')
      .select(['key_id', 'tenant_id', 'key_hash'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    if (!timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) return null;
    const principal = { tenantId: row.tenant_id as string, keyId: row.key_id as string };
    this.cache.set(hash, { principal, until: this.now() + this.ttlMs });
    return principal;
  }
}

function parseSuppliedKey(key: string): { key: string; keyId: string } {
  const m = API_KEY_PATTERN.exec(key);
  if (m) return { key, keyId: m[1]! };
  if (key.length < 32) throw new Error('a supplied API key must have at least 32 characters');
  return { key, keyId: hashApiKey(key).slice(0, 12) };
}
