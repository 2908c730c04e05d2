import { sql, type Kysely } from 'kysely';
import type { DecodedRecord, RecordOf } from '@stratagate/domain';
import type { ReadModelTables, TopicRow } from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
type Meta = DecodedRecord['meta'];

/** MM-TOP-4: events a chapter may hold. */
export const MEMBER_STATUSES = ['active', 'superseded'] as const;

const spaceOf = (meta: Meta) => ({
  tenant_id: meta.metadata.tenantId,
  space_id: meta.metadata.spaceId,
});

/**
 * MM-TOP-7/8: a topic batch's chapters replace what the read model had for them. A result whose
 * batch events are no longer all members (forgotten, archived or gone since the job read them) is
 * late and changes nothing; the job reads them again.
 */
export async function onTopicsBuilt(rm: Rm, rec: RecordOf<'TopicsBuilt'>, meta: Meta) {
  const space = spaceOf(meta);
  // The batch events its chapters hold (a chapter erased since is no longer in the record).
  const held = new Set(rec.data.topics.flatMap((t) => t.sourceEventIds));
  const ids = rec.data.eventIds.filter((id) => held.has(id));
  if (ids.length === 0) return;
  const eligible = await rm
    .selectFrom('memory_events')
    .select(['event_id', 'created_at'])
    .where('tenant_id', '=', space.tenant_id)
    .where('space_id', '=', space.space_id)
    .where('event_id', 'in', ids)
    .where('status', 'in', MEMBER_STATUSES)
    .execute();
  if (eligible.length !== new Set(ids).size) return;
  const createdAt = eligible.map((e) => e.created_at).reduce((a, b) => (a > b ? a : b));
  for (const topic of rec.data.topics) {
    const content = {
      title: topic.title,
      description: topic.description,
      category: topic.category,
      source_event_ids: JSON.stringify(topic.sourceEventIds),
      sections: JSON.stringify(topic.sections),
      paragraphs: JSON.stringify(topic.paragraphs),
      input_fingerprints: JSON.stringify(topic.inputFingerprints),
      pending_update: false,
      applied_position: meta.position,
    };
    await rm
      .insertInto('topics')
      .values({
        ...space,
        topic_id: topic.topicId,
        created_at: createdAt,
        ...content,
      } as never)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'space_id', 'topic_id']).doUpdateSet(content as never),
      )
      .execute();
    if (topic.sourceEventIds.length > 0) {
      await rm
        .insertInto('topic_members')
        .values(
          topic.sourceEventIds.map((event_id) => ({ ...space, event_id, topic_id: topic.topicId })),
        )
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'space_id', 'event_id'])
            .doUpdateSet({ topic_id: topic.topicId }),
        )
        .execute();
    }
  }
  await rm
    .deleteFrom('topic_jobs')
    .where('tenant_id', '=', space.tenant_id)
    .where('space_id', '=', space.space_id)
    .execute();
}

export async function onTopicJobFailed(rm: Rm, rec: RecordOf<'TopicJobFailed'>, meta: Meta) {
  const d = rec.data;
  const row = {
    status: 'failed' as const,
    attempts: d.attempt,
    next_retry_at: d.nextRetryAt,
    last_error: `${d.code}: ${d.message}`.slice(0, 2000),
    applied_position: meta.position,
  };
  await rm
    .insertInto('topic_jobs')
    .values({ ...spaceOf(meta), ...row, cycle: 0 })
    .onConflict((oc) => oc.columns(['tenant_id', 'space_id']).doUpdateSet(row))
    .execute();
}

/**
 * A manual retry starts a new cycle of attempts (MM-TOP-8). The cycle is counted so the jobs of
 * the new cycle are told apart from those of the last, which read the same batch.
 */
export async function onTopicRetryRequested(rm: Rm, meta: Meta) {
  const row = {
    status: 'idle' as const,
    attempts: 0,
    next_retry_at: null,
    last_error: null,
    applied_position: meta.position,
  };
  await rm
    .insertInto('topic_jobs')
    .values({ ...spaceOf(meta), ...row, cycle: 1 })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'space_id'])
        .doUpdateSet({ ...row, cycle: sql`${sql.ref('topic_jobs.cycle')} + 1` as never }),
    )
    .execute();
}

/** Records that may take events out of their chapters (forget, archive, undo of an import). */
const MEMBER_CHANGING_RECORDS: ReadonlySet<string> = new Set([
  'MemoryEventsExtracted',
  'MemoryEventStateChanged',
  'AgentMemoryRecorded',
  'ExternalMemoryImported',
  'ExternalMemoryImportUndone',
]);

/**
 * MM-TOP-7: a chapter whose member was forgotten, archived or removed is invalidated once: its
 * text is cleared, the event leaves it, it shows as pending an update, and its other members are
 * unassigned so the topic job takes them again with this chapter as their candidate. Its id and
 * creation stay, so its number does not move (MM-TOP-5).
 */
export async function invalidateTopicsAfterEventChanges(rm: Rm, record: DecodedRecord) {
  if (!MEMBER_CHANGING_RECORDS.has(record.type)) return;
  const space = spaceOf(record.meta);
  const removed =
    record.type === 'ExternalMemoryImportUndone'
      ? (record as RecordOf<'ExternalMemoryImportUndone'>).data.eventIds
      : (
          await rm
            .selectFrom('memory_events')
            .select('event_id')
            .where('tenant_id', '=', space.tenant_id)
            .where('space_id', '=', space.space_id)
            .where('applied_position', '=', record.meta.position)
            .where('status', 'not in', MEMBER_STATUSES)
            .execute()
        ).map((r) => r.event_id);
  if (removed.length === 0) return;
  const hit = await rm
    .selectFrom('topic_members')
    .select('topic_id')
    .distinct()
    .where('tenant_id', '=', space.tenant_id)
    .where('space_id', '=', space.space_id)
    .where('event_id', 'in', removed)
    .execute();
  if (hit.length === 0) return;
  const gone = new Set(removed);
  const topics = await rm
    .selectFrom('topics')
    .selectAll()
    .where('tenant_id', '=', space.tenant_id)
    .where('space_id', '=', space.space_id)
    .where(
      'topic_id',
      'in',
      hit.map((h) => h.topic_id),
    )
    .execute();
  for (const t of topics as TopicRow[]) {
    const keep = (ids: readonly string[]) => ids.filter((id) => !gone.has(id));
    await rm
      .updateTable('topics')
      .set({
        source_event_ids: JSON.stringify(keep(t.source_event_ids)),
        sections: JSON.stringify(
          t.sections
            .map((s) => ({ title: s.title, sourceEventIds: keep(s.sourceEventIds) }))
            .filter((s) => s.sourceEventIds.length > 0),
        ),
        paragraphs: sql`'[]'::jsonb`,
        pending_update: true,
        applied_position: record.meta.position,
      } as never)
      .where('tenant_id', '=', space.tenant_id)
      .where('space_id', '=', space.space_id)
      .where('topic_id', '=', t.topic_id)
      .execute();
    await rm
      .deleteFrom('topic_members')
      .where('tenant_id', '=', space.tenant_id)
      .where('space_id', '=', space.space_id)
      .where('topic_id', '=', t.topic_id)
      .execute();
  }
}
