import { spaceKey, type SpaceRef } from '@stratagate/domain';
import { migrateUnderLock, type AnyDb } from '@stratagate/store';
import { sql } from 'kysely';

export interface PartitionRef {
  groupId: string;
  topic: string;
  partition: number;
}

/**
 * Where a consumer group stands, kept in Postgres and written in the consumer's own transaction:
 * per topic-partition the next offset to apply, and per memory space the last version applied
 * (which is how a second copy of a record on the topic is recognised and skipped).
 */
export interface KafkaCheckpointStore {
  readonly schema: string;
  /**
   * Next offsets of a group's partitions: where to seek on assignment, or (in `q`, a transaction)
   * where a group stands as that transaction sees it.
   */
  read(groupId: string, topic: string, q?: AnyDb): Promise<Map<number, number>>;
  /**
   * In the caller's transaction: locks the partition's checkpoint row until commit and returns the
   * next offset to apply (0 for a partition never applied). Two consumers applying the same
   * partition (a zombie after a rebalance) are serialised here, and the second sees the first's
   * progress.
   */
  claim(tx: AnyDb, ref: PartitionRef): Promise<number>;
  /** In the same transaction, after claim. */
  advance(tx: AnyDb, ref: PartitionRef, nextOffset: number): Promise<void>;
  /** Last applied version per space (spaceKey), for the given spaces; absent = none applied. */
  spaceVersions(
    tx: AnyDb,
    groupId: string,
    topic: string,
    spaces: readonly SpaceRef[],
  ): Promise<Map<string, number>>;
  storeSpaceVersions(
    tx: AnyDb,
    groupId: string,
    topic: string,
    versions: readonly { space: SpaceRef; version: number }[],
  ): Promise<void>;
  /**
   * In `tx`: gives group `to` the checkpoints of group `from` (partition offsets and applied space
   * versions), never moving one of `to`'s back. What one group built, another continues exactly
   * where it stopped (a projection rebuild hands its build group over to the live one).
   */
  copyGroup(tx: AnyDb, topic: string, from: string, to: string): Promise<void>;
}

/** Creates (idempotently) the checkpoint tables in `schema` (default `kafka_consumer`). */
export async function createKafkaCheckpointStore(
  db: AnyDb,
  options: { schema?: string } = {},
): Promise<KafkaCheckpointStore> {
  const schema = options.schema ?? 'kafka_consumer';
  const offsets = sql.table(`${schema}.partition_offsets`);
  const versions = sql.table(`${schema}.space_versions`);

  await migrateUnderLock(db, 'stratagate.kafka-consumer', schema, async (trx) => {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(trx);
    await sql`
      create table if not exists ${offsets} (
        group_id    text not null,
        topic       text not null,
        partition   integer not null,
        next_offset bigint not null,
        updated_at  timestamptz not null default now(),
        primary key (group_id, topic, partition)
      )`.execute(trx);
    await sql`
      create table if not exists ${versions} (
        group_id  text not null,
        topic     text not null,
        tenant_id text not null,
        space_id  text not null,
        version   bigint not null,
        primary key (group_id, topic, tenant_id, space_id)
      )`.execute(trx);
  });

  return {
    schema,

    async read(groupId, topic, q = db) {
      const { rows } = await sql<{ partition: number; next_offset: number | string }>`
        select partition, next_offset from ${offsets}
        where group_id = ${groupId} and topic = ${topic}`.execute(q);
      return new Map(rows.map((r) => [r.partition, Number(r.next_offset)]));
    },

    async claim(tx, { groupId, topic, partition }) {
      // The no-op update takes the row lock even when the row already exists.
      const { rows } = await sql<{ next_offset: number | string }>`
        insert into ${offsets} as o (group_id, topic, partition, next_offset)
        values (${groupId}, ${topic}, ${partition}, 0)
        on conflict (group_id, topic, partition) do update set next_offset = o.next_offset
        returning next_offset`.execute(tx);
      return Number(rows[0]?.next_offset ?? 0);
    },

    async advance(tx, { groupId, topic, partition }, nextOffset) {
      const { rows } = await sql<{ partition: number }>`
        update ${offsets} set next_offset = ${nextOffset}, updated_at = now()
        where group_id = ${groupId} and topic = ${topic} and partition = ${partition}
          and next_offset <= ${nextOffset}
        returning partition`.execute(tx);
      if (rows.length !== 1) {
        throw new Error(
          `checkpoint of ${groupId}/${topic}[${partition}] was not claimed or would move back`,
        );
      }
    },

    async spaceVersions(tx, groupId, topic, spaces) {
      const found = new Map<string, number>();
      if (spaces.length === 0) return found;
      const wanted = spaces.map((s) => sql`(${s.tenantId}, ${s.spaceId})`);
      const { rows } = await sql<{ tenant_id: string; space_id: string; version: number | string }>`
        select tenant_id, space_id, version from ${versions}
        where group_id = ${groupId} and topic = ${topic}
          and (tenant_id, space_id) in (${sql.join(wanted)})`.execute(tx);
      for (const r of rows) {
        found.set(spaceKey({ tenantId: r.tenant_id, spaceId: r.space_id }), Number(r.version));
      }
      return found;
    },

    async storeSpaceVersions(tx, groupId, topic, moved) {
      if (moved.length === 0) return;
      const values = moved.map(
        ({ space, version }) =>
          sql`(${groupId}, ${topic}, ${space.tenantId}, ${space.spaceId}, ${version}::bigint)`,
      );
      await sql`
        insert into ${versions} as v (group_id, topic, tenant_id, space_id, version)
        values ${sql.join(values)}
        on conflict (group_id, topic, tenant_id, space_id)
          do update set version = greatest(v.version, excluded.version)`.execute(tx);
    },

    async copyGroup(tx, topic, from, to) {
      await sql`
        insert into ${offsets} as o (group_id, topic, partition, next_offset)
        select ${to}, topic, partition, next_offset from ${offsets}
        where group_id = ${from} and topic = ${topic}
        on conflict (group_id, topic, partition)
          do update set next_offset = greatest(o.next_offset, excluded.next_offset)`.execute(tx);
      await sql`
        insert into ${versions} as v (group_id, topic, tenant_id, space_id, version)
        select ${to}, topic, tenant_id, space_id, version from ${versions}
        where group_id = ${from} and topic = ${topic}
        on conflict (group_id, topic, tenant_id, space_id)
          do update set version = greatest(v.version, excluded.version)`.execute(tx);
    },
  };
}
