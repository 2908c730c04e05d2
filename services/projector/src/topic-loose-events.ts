import { sql, type Kysely } from 'kysely';
import type { DecodedRecord } from '@stratagate/domain';
import type { ReadModelTables } from '@stratagate/store';
import { MEMBER_STATUSES } from './topics.projection.ts';

type Rm = Kysely<ReadModelTables>;

/** Records that write topics or their members (the others only change events). */
const TOPIC_RECORDS: ReadonlySet<string> = new Set(['TopicsBuilt']);

interface Touched {
  tenantId: string;
  spaceId: string;
  from: number;
  to: number;
  topics: boolean;
}

/**
 * The directory's loose events (ADR 0054): a space's visible events no chapter holds, and their
 * counts by criticality and type. Recall lists the first few and counts the rest from these
 * tables instead of reading every event of the space.
 *
 * They are brought up to date once per projection batch, for the events the batch changed:
 * every write to an event stamps its row with the record's position (`applied_position`), and
 * every write to a chapter stamps the chapter, so the rows stamped within the batch's positions
 * are exactly the events whose place may have moved. One set-based pass per space and batch.
 */
export class LooseEventTracker {
  private readonly spaces = new Map<string, Touched>();

  /** A record the batch applied (turns and seals never change events or chapters). */
  note(record: DecodedRecord): void {
    if (record.type === 'TurnRecorded' || record.type === 'BlockSealed') return;
    const { tenantId, spaceId } = record.meta.metadata;
    const key = JSON.stringify([tenantId, spaceId]);
    const position = record.meta.position;
    const topics = TOPIC_RECORDS.has(record.type);
    const seen = this.spaces.get(key);
    if (!seen) {
      this.spaces.set(key, { tenantId, spaceId, from: position, to: position, topics });
      return;
    }
    seen.from = Math.min(seen.from, position);
    seen.to = Math.max(seen.to, position);
    seen.topics ||= topics;
  }

  async flush(rm: Rm): Promise<void> {
    for (const touched of this.spaces.values()) await syncSpace(rm, touched);
    this.spaces.clear();
  }
}

async function syncSpace(rm: Rm, t: Touched): Promise<void> {
  const inSpace = { tenant_id: t.tenantId, space_id: t.spaceId };
  const changed = await rm
    .selectFrom('memory_events')
    .select('event_id')
    .where('tenant_id', '=', t.tenantId)
    .where('space_id', '=', t.spaceId)
    .where('applied_position', '>=', t.from)
    .where('applied_position', '<=', t.to)
    .execute();
  const ids = new Set(changed.map((r) => r.event_id));
  // A chapter built or emptied in the batch: its members joined it or were let go. An event
  // that left a chapter because it changed is among the changed events already.
  if (t.topics || ids.size > 0) {
    const chapters = await rm
      .selectFrom('topics')
      .select('source_event_ids')
      .where('tenant_id', '=', t.tenantId)
      .where('space_id', '=', t.spaceId)
      .where('applied_position', '>=', t.from)
      .where('applied_position', '<=', t.to)
      .execute();
    for (const c of chapters) for (const id of c.source_event_ids) ids.add(id);
  }
  if (ids.size === 0) return;
  const eventIds = [...ids];
  const [want, have] = await Promise.all([
    rm
      .selectFrom('memory_events as e')
      .select(['e.event_id', 'e.created_at', 'e.criticality', 'e.event_type'])
      .where('e.tenant_id', '=', t.tenantId)
      .where('e.space_id', '=', t.spaceId)
      .where('e.event_id', 'in', eventIds)
      .where('e.status', 'in', MEMBER_STATUSES)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('topic_members as m')
              .select('m.event_id')
              .whereRef('m.tenant_id', '=', 'e.tenant_id')
              .whereRef('m.space_id', '=', 'e.space_id')
              .whereRef('m.event_id', '=', 'e.event_id'),
          ),
        ),
      )
      .execute(),
    rm
      .selectFrom('topic_loose_events')
      .select(['event_id', 'created_at', 'criticality', 'event_type'])
      .where('tenant_id', '=', t.tenantId)
      .where('space_id', '=', t.spaceId)
      .where('event_id', 'in', eventIds)
      .execute(),
  ]);
  type Row = (typeof want)[number];
  const same = (a: Row, b: Row) =>
    a.created_at === b.created_at &&
    a.criticality === b.criticality &&
    a.event_type === b.event_type;
  const wanted = new Map(want.map((r) => [r.event_id, r]));
  const had = new Map(have.map((r) => [r.event_id, r]));
  const removed = have.filter((r) => !wanted.has(r.event_id) || !same(r, wanted.get(r.event_id)!));
  const added = want.filter((r) => !had.has(r.event_id) || !same(r, had.get(r.event_id)!));
  if (removed.length === 0 && added.length === 0) return;

  const delta = new Map<
    string,
    { criticality: Row['criticality']; event_type: string; n: number }
  >();
  const count = (r: Row, n: number) => {
    const key = JSON.stringify([r.criticality, r.event_type]);
    const d = delta.get(key) ?? { criticality: r.criticality, event_type: r.event_type, n: 0 };
    d.n += n;
    delta.set(key, d);
  };
  removed.forEach((r) => count(r, -1));
  added.forEach((r) => count(r, 1));

  if (removed.length > 0) {
    await rm
      .deleteFrom('topic_loose_events')
      .where('tenant_id', '=', t.tenantId)
      .where('space_id', '=', t.spaceId)
      .where(
        'event_id',
        'in',
        removed.map((r) => r.event_id),
      )
      .execute();
  }
  if (added.length > 0) {
    await rm
      .insertInto('topic_loose_events')
      .values(added.map((r) => ({ ...inSpace, ...r })))
      .execute();
  }
  const moved = [...delta.values()].filter((d) => d.n !== 0);
  if (moved.length === 0) return;
  await rm
    .insertInto('topic_loose_counts')
    .values(moved.map((d) => ({ ...inSpace, ...d })))
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'space_id', 'criticality', 'event_type'])
        .doUpdateSet({ n: sql<number>`topic_loose_counts.n + excluded.n` }),
    )
    .execute();
  if (!moved.some((d) => d.n < 0)) return;
  await rm
    .deleteFrom('topic_loose_counts')
    .where('tenant_id', '=', t.tenantId)
    .where('space_id', '=', t.spaceId)
    .where('n', '<=', 0)
    .execute();
}
