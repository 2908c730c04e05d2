import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  bm25Rank,
  decideTopicCompletion,
  eventCategory,
  eventFingerprint,
  takeCodePoints,
  TOPIC_BATCH_MAX_CANDIDATES,
  TOPIC_BATCH_MAX_EVENTS,
  TOPIC_MAX_ATTEMPTS,
  type EventType,
  type MemoryRecord,
  type SpaceRef,
  type TopicBatchEvent,
  type TopicCandidate,
  type TopicCategory,
  type TopicFailureCode,
} from '@stratagate/domain';
import { newRecord, type MessageLog } from '@stratagate/log';
import {
  createOfflineProvider,
  type ModelPort,
  type TopicEntity,
  type TopicSourceEvent,
} from '@stratagate/model';
import {
  countEventsWithoutTopic,
  eventsWithoutTopic,
  GRAPH_NODE_CITED_EVENTS,
  reserveTopicModelCall,
  type AnyDb,
  type MemoryEventRow,
  type ReadModelTables,
  type TopicRow,
} from '@stratagate/store';

type Rm = Kysely<ReadModelTables>;
const rmOf = (db: AnyDb, schema: string) => (db as Kysely<ReadModelTables>).withSchema(schema);

/** MM-TOP-8: an event longer than this is cut for the prompt and backs only scope paragraphs. */
const CUT_ABOVE_CHARS = 10_000;
/** After a scan that ran nothing, the next waits this long (the scan reads every space). */
const LOOK_EVERY_MS = 2_000;

/**
 * Spaces with events no chapter holds yet (MM-TOP-4, counted by the projection: ADR 0054),
 * whose topic job is not waiting out a failure, and whose extraction and graph work is done:
 * chapters are built from what the graph knows of each event, so topic work comes after it
 * (never before, never blocking it, MM-TOP-11).
 */
export async function dueTopicSpaces(
  db: AnyDb,
  schema: string,
  now: Date,
  limit: number,
  waitForGraph: boolean,
) {
  const t = (name: string) => sql.table(`${schema}.${name}`);
  const { rows } = await sql<{
    tenant_id: string;
    space_id: string;
    attempts: number;
    cycle: number;
  }>`
    select e.tenant_id, e.space_id, coalesce(max(j.attempts), 0)::int as attempts,
      coalesce(max(j.cycle), 0)::int as cycle
    from ${t('topic_loose_counts')} e
    left join ${t('topic_jobs')} j on j.tenant_id = e.tenant_id and j.space_id = e.space_id
    where (j.status is null or (j.attempts < ${TOPIC_MAX_ATTEMPTS}
        and (j.next_retry_at is null or j.next_retry_at <= ${now.toISOString()})))
      and not exists (select 1 from ${t('blocks')} b
        where b.tenant_id = e.tenant_id and b.space_id = e.space_id
          and ((b.status = 'pending' and b.summary_attempts < 3 and b.extraction_attempts < 3)
            or (${waitForGraph} and (b.graph_status = 'pending'
              or (b.graph_status = 'failed' and b.graph_attempts < 3)))))
    group by e.tenant_id, e.space_id
    order by e.tenant_id, e.space_id
    limit ${limit}`.execute(db);
  return rows;
}

/** The canonical card of an event row, as extraction recorded it (MM-TOP-7 fingerprints it). */
function cardOf(e: MemoryEventRow) {
  return {
    id: e.event_id,
    title: e.title,
    summary: e.summary,
    tags: e.tags,
    quotes: e.quotes,
    sourceMessageIds: e.source_message_ids,
    sourceBlockId: e.source_block_id,
    scope: e.scope,
    criticality: e.criticality,
    temporal: e.temporal,
    catalogHints: e.catalog_hints,
    extractorVersion: e.extractor_version,
  };
}

const categoryOf = (e: MemoryEventRow): TopicCategory =>
  eventCategory({ criticality: e.criticality, temporal: { eventType: e.event_type as EventType } });

const lengthOf = (e: MemoryEventRow) =>
  [...e.title].length + [...e.summary].length + e.tags.join('').length;

/** MM-TOP-8: a compact event, cut when it is long. */
function sourceEvent(e: MemoryEventRow, entities: TopicEntity[]): TopicSourceEvent {
  const cut = lengthOf(e) > CUT_ABOVE_CHARS;
  const temporal = e.temporal as {
    participants?: string[];
    status?: string;
    supersedesEventIds?: string[];
    relatedEventIds?: string[];
    sameEventId?: string;
  };
  const when = e.happened_start ?? e.mentioned_at ?? undefined;
  return {
    id: e.event_id,
    title: takeCodePoints(e.title, 120),
    summary: takeCodePoints(e.summary, 800),
    tags: (cut ? e.tags.slice(0, 4).map((t) => takeCodePoints(t, 40)) : e.tags).slice(0, 12),
    catalogHints: e.catalog_hints,
    participants: (temporal.participants ?? []).slice(0, 12),
    eventType: e.event_type,
    status: temporal.status ?? 'unknown',
    criticality: e.criticality,
    ...(when ? { when: takeCodePoints(when, 120) } : {}),
    supersedesEventIds: temporal.supersedesEventIds ?? [],
    relatedEventIds: [
      ...(temporal.relatedEventIds ?? []),
      ...(temporal.sameEventId ? [temporal.sameEventId] : []),
    ],
    entities,
    cut,
  };
}

/** Graph nodes that cite each event: the subjects a chapter may be named after. */
async function entitiesOf(db: AnyDb, schema: string, space: SpaceRef, eventIds: readonly string[]) {
  const out = new Map<string, TopicEntity[]>();
  if (eventIds.length === 0) return out;
  const { rows } = await sql<{ name: string; type: string; cited: string[] }>`
    select name, type, (${sql.raw(GRAPH_NODE_CITED_EVENTS)}) as cited
    from ${sql.table(`${schema}.graph_nodes`)}
    where tenant_id = ${space.tenantId} and space_id = ${space.spaceId}
      and status in ('active', 'disputed')
      and (${sql.raw(GRAPH_NODE_CITED_EVENTS)}) ?| ${sql.val([...eventIds])}::text[]
    order by node_id`.execute(db);
  const wanted = new Set(eventIds);
  for (const r of rows) {
    for (const id of new Set(r.cited)) {
      if (!wanted.has(id)) continue;
      out.set(id, [...(out.get(id) ?? []), { name: r.name, type: r.type as TopicEntity['type'] }]);
    }
  }
  return out;
}

export interface TopicJobsOptions {
  db: AnyDb;
  log: MessageLog;
  model: ModelPort;
  now: () => Date;
  timeoutMs: number;
  batchSize: number;
  /** `offline`: the offline builder, whatever the model; `model`: the model's `buildTopics`. */
  builder: 'offline' | 'model';
  /** Spaces whose jobs wait (a space being imported, ADR 0045). */
  skip: (space: { tenant_id: string; space_id: string }) => boolean;
  /** How far the projector is, on a log with one global order; absent on Kafka. */
  projected?: () => Promise<number>;
}

const retryAt = (now: Date, attempt: number) =>
  attempt >= TOPIC_MAX_ATTEMPTS
    ? null
    : new Date(now.getTime() + 30_000 * 2 ** (attempt - 1)).toISOString();

/**
 * The topic directory's background work (MM-TOP-8): one batch per space at a time, of its events
 * no chapter holds, with the chapters they are most likely to join as candidates. The provider
 * proposes; `decideTopicCompletion` re-checks the sources read again at commit and accepts the
 * result whole, or records the failure with its backoff.
 */
export function createTopicJobs(options: TopicJobsOptions) {
  const { db, log, model, now } = options;
  let quietUntil = -Infinity;
  /** When the last scan ran, until the pass that used it reports. */
  let scannedAt: number | null = null;
  /** Spaces whose history waits for the model budget (MM-TOP-9), until when. */
  const waitingForBudget = new Map<string, number>();
  const build =
    options.builder === 'model' && model.buildTopics
      ? model.buildTopics.bind(model)
      : createOfflineProvider().buildTopics!;

  /** The space's last record is projected: what the job reads is the whole space (ADR 0045). */
  async function settled(schema: string, space: SpaceRef): Promise<boolean> {
    // A log without one global order (Kafka) has no position to compare with.
    if (!options.projected && !log.capabilities.globalOrder) return true;
    const version = await log.spaceVersion(space);
    if (version === 0) return true;
    const [last] = await log.readSpace(space, version - 1, 1);
    if (!last) return true;
    return last.position <= (await projectedPosition(schema));
  }

  async function projectedPosition(schema: string): Promise<number> {
    if (options.projected) return options.projected();
    const { rows } = await sql<{ position: string | number }>`
      select position from ${sql.table(`${schema}.checkpoints`)} where name = 'core'`.execute(db);
    return Number(rows[0]?.position ?? 0);
  }

  async function batchOf(rm: Rm, space: SpaceRef) {
    const events = await eventsWithoutTopic(rm, space)
      .selectAll('e')
      .orderBy('e.record_position')
      .orderBy('e.event_id')
      .limit(TOPIC_BATCH_MAX_EVENTS)
      .execute();
    return events as MemoryEventRow[];
  }

  /** MM-TOP-8: candidates by member overlap, then BM25 against the batch, then recency. */
  async function candidatesFor(rm: Rm, space: SpaceRef, events: readonly MemoryEventRow[]) {
    const topics = (await rm
      .selectFrom('topics')
      .selectAll()
      .where('tenant_id', '=', space.tenantId)
      .where('space_id', '=', space.spaceId)
      .execute()) as TopicRow[];
    const ids = new Set(events.map((e) => e.event_id));
    const overlap = (t: TopicRow) => t.source_event_ids.filter((id) => ids.has(id)).length;
    const query = events.map((e) => `${e.title} ${e.tags.join(' ')}`).join(' ');
    const scores = new Map(
      bm25Rank(
        query,
        topics.map((t) => ({
          id: t.topic_id,
          fields: [
            { text: t.title, weight: 8 },
            { text: t.description, weight: 2 },
            { text: t.sections.map((s) => s.title).join(' '), weight: 6 },
          ],
        })),
      ).map((r) => [r.id, r.score]),
    );
    return topics
      .filter((t) => t.source_event_ids.length > 0)
      .sort(
        (a, b) =>
          overlap(b) - overlap(a) ||
          (scores.get(b.topic_id) ?? 0) - (scores.get(a.topic_id) ?? 0) ||
          (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) ||
          (a.topic_id < b.topic_id ? -1 : 1),
      )
      .slice(0, TOPIC_BATCH_MAX_CANDIDATES);
  }

  /**
   * MM-TOP-9: a space with more events outside its chapters than one batch holds is catching up
   * on its history, and each of those model calls is reserved against the installation-wide
   * budget first; a space keeping up (one batch or less) is not budgeted. Without a reservation
   * the space waits until the budget frees, and other spaces go on.
   */
  async function withinHistoryBudget(rm: Rm, space: SpaceRef, jobId: string): Promise<boolean> {
    if ((await countEventsWithoutTopic(rm, space)) <= TOPIC_BATCH_MAX_EVENTS) return true;
    const answer = await reserveTopicModelCall(db, {
      jobId,
      tenantId: space.tenantId,
      spaceId: space.spaceId,
      now: now(),
    });
    if (answer.granted) return true;
    waitingForBudget.set(`${space.tenantId}/${space.spaceId}`, answer.retryAt.getTime());
    return false;
  }

  async function allChapterIds(rm: Rm, space: SpaceRef) {
    const rows = await rm
      .selectFrom('topics')
      .select('topic_id')
      .where('tenant_id', '=', space.tenantId)
      .where('space_id', '=', space.spaceId)
      .orderBy('topic_id')
      .execute();
    return rows.map((r) => r.topic_id);
  }

  async function membersOf(rm: Rm, space: SpaceRef, ids: readonly string[]) {
    if (ids.length === 0) return new Map<string, MemoryEventRow>();
    const rows = (await rm
      .selectFrom('memory_events')
      .selectAll()
      .where('tenant_id', '=', space.tenantId)
      .where('space_id', '=', space.spaceId)
      .where('event_id', 'in', [...new Set(ids)])
      .execute()) as MemoryEventRow[];
    return new Map(rows.map((r) => [r.event_id, r]));
  }

  async function runSpace(
    schema: string,
    due: { tenant_id: string; space_id: string; attempts: number; cycle: number },
    signal: AbortSignal,
    /** The lease on the space still holds (ADR 0042); a lost lease drops the result. */
    stillHeld: () => Promise<boolean> = async () => true,
  ): Promise<boolean> {
    const space: SpaceRef = { tenantId: due.tenant_id, spaceId: due.space_id };
    if (!(await settled(schema, space))) return false;
    const rm = rmOf(db, schema);
    const events = await batchOf(rm, space);
    if (events.length === 0) return false;
    const candidates = await candidatesFor(rm, space, events);
    const members = await membersOf(
      rm,
      space,
      candidates.flatMap((c) => c.source_event_ids),
    );
    const entities = await entitiesOf(db, schema, space, [
      ...events.map((e) => e.event_id),
      ...members.keys(),
    ]);
    const attempt = due.attempts + 1;
    const batchIds = events.map((e) => e.event_id);

    const batch: TopicBatchEvent[] = events.map((e) => ({
      id: e.event_id,
      fingerprint: eventFingerprint(cardOf(e)),
      category: categoryOf(e),
      cut: lengthOf(e) > CUT_ABOVE_CHARS,
    }));
    const shown: TopicCandidate[] = candidates.map((c) => ({
      topicId: c.topic_id,
      title: c.title,
      description: c.description,
      sourceEventIds: c.source_event_ids,
      sections: c.sections,
      paragraphs: c.paragraphs as TopicCandidate['paragraphs'],
      inputFingerprints: c.input_fingerprints,
      memberCategories: c.source_event_ids.flatMap((id) => {
        const row = members.get(id);
        return row ? [categoryOf(row)] : [];
      }),
    }));
    // Decided by what the job reads, so the same space state gives the same chapters and ids
    // wherever it is built (an exported space and its import, ADR 0045). The fingerprints and
    // every chapter id (emptied ones too) tell apart a batch that comes back after a forget and
    // restore from the job that first placed it, which would otherwise share its key.
    const chapterIds = await allChapterIds(rm, space);
    const jobId = `topicjob_${createHash('sha256')
      .update(
        JSON.stringify([
          batch.map((b) => [b.id, b.fingerprint]),
          candidates.map((c) => [c.topic_id, c.source_event_ids]),
          chapterIds,
          attempt,
          // Only a retried space's jobs say their cycle: a first cycle keeps the ids it had.
          ...(due.cycle > 0 ? [due.cycle] : []),
        ]),
      )
      .digest('hex')
      .slice(0, 24)}`;
    const key = `topics:${jobId}`;
    // Appended before a restart, not yet projected: nothing to do until it is.
    if ((await log.findByIdempotencyKey(space, key)) !== null) return false;
    if (options.builder === 'model' && !(await withinHistoryBudget(rm, space, jobId))) return false;
    let record: MemoryRecord;
    try {
      const pick = (ids: readonly string[]) => [...ids.slice(0, 3), ...ids.slice(3).slice(-3)];
      const result = await build(
        {
          events: events.map((e) => sourceEvent(e, entities.get(e.event_id) ?? [])),
          candidates: candidates.map((c) => ({
            topicId: c.topic_id,
            title: c.title,
            description: c.description,
            sections: c.sections.map((s) => ({ title: s.title, eventIds: s.sourceEventIds })),
            paragraphs: c.paragraphs.slice(0, 4),
            paragraphCount: c.paragraphs.length,
            memberIds: c.source_event_ids,
            members: pick(c.source_event_ids).flatMap((id) => {
              const row = members.get(id);
              return row
                ? [
                    {
                      id,
                      title: row.title,
                      tags: row.tags.slice(0, 4),
                      entities: entities.get(id) ?? [],
                    },
                  ]
                : [];
            }),
          })),
        },
        { signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), signal]) },
      );
      // Read the sources again: a result is checked against the space as it is now (MM-GEN-9).
      const nowEvents = await membersOf(rm, space, batchIds);
      const nowTopics = new Map(
        (
          (await rm
            .selectFrom('topics')
            .selectAll()
            .where('tenant_id', '=', space.tenantId)
            .where('space_id', '=', space.spaceId)
            .where(
              'topic_id',
              'in',
              candidates.length > 0 ? candidates.map((c) => c.topic_id) : [''],
            )
            .execute()) as TopicRow[]
        ).map((t) => [t.topic_id, t.source_event_ids]),
      );
      const decided = decideTopicCompletion(
        {
          jobId,
          mode: 'incremental',
          attempt,
          events: batch,
          candidates: shown,
          proposed: result.output.topics,
          model: {
            provider: result.provider,
            ...(result.model ? { model: result.model } : {}),
            promptVersion: result.promptVersion,
          },
        },
        {
          fingerprintOf: (id) => {
            const row = nowEvents.get(id);
            return row && (row.status === 'active' || row.status === 'superseded')
              ? eventFingerprint(cardOf(row))
              : undefined;
          },
          candidateMembersOf: (id) => nowTopics.get(id),
        },
      );
      record = decided.ok
        ? decided.record
        : failed(jobId, attempt, batchIds, decided.code, decided.message);
    } catch (error) {
      if (signal.aborted) return false;
      const e = error as { name?: string; message?: string };
      const code: TopicFailureCode =
        e.name === 'TimeoutError'
          ? 'timeout'
          : e.name === 'InvalidModelOutputError'
            ? 'invalid-output'
            : 'worker-failed';
      record = failed(jobId, attempt, batchIds, code, String(e.message ?? error));
    }
    if (!(await stillHeld())) return false;
    const result = await log.append(space, [
      newRecord(space, record, { occurredAt: now().toISOString(), idempotencyKey: key }),
    ]);
    return result.status === 'appended';
  }

  function failed(
    jobId: string,
    attempt: number,
    eventIds: string[],
    code: TopicFailureCode,
    message: string,
  ): MemoryRecord {
    return {
      type: 'TopicJobFailed',
      data: {
        jobId,
        mode: 'incremental',
        attempt,
        eventIds,
        code,
        message: message.slice(0, 2000),
        nextRetryAt: retryAt(now(), attempt),
      },
    };
  }

  return {
    /**
     * The spaces due for a batch (skipping imports and spaces waiting for the budget). After a
     * scan whose spaces ran nothing (`idle`), the next scan waits a while: it reads every event.
     */
    async due(schema: string): Promise<DueTopicSpace[]> {
      const at = performance.now();
      if (at < quietUntil) return [];
      scannedAt = at;
      const due = await dueTopicSpaces(
        db,
        schema,
        now(),
        options.batchSize,
        model.proposeGraph !== undefined,
      );
      return due.filter((space) => {
        if (options.skip(space)) return false;
        const budgetFrees = waitingForBudget.get(`${space.tenant_id}/${space.space_id}`);
        return budgetFrees === undefined || now().getTime() >= budgetFrees;
      });
    },
    /** Runs one batch of the space; true when it appended a record. */
    runSpace,
    /**
     * Nothing of the last scan ran (nothing due, or every due space still waiting for its last
     * record): the next scan waits. A pass that did not scan (quiet) changes nothing.
     */
    idle() {
      if (scannedAt !== null) quietUntil = scannedAt + LOOK_EVERY_MS;
      scannedAt = null;
    },
  };
}

export type DueTopicSpace = Awaited<ReturnType<typeof dueTopicSpaces>>[number];
