/**
 * Seeds a space for the search benchmark through the real write path, in large batches: the
 * records a real space accumulates are produced by the same functions the services use, then
 * appended to the message log (`MessageLog.append`), and the server's projector builds the read
 * models and the search index from position 0.
 *
 * - `TurnRecorded` / `BlockSealed`: `decideRecordTurn` + `evolveSpaceWriter` (the ingest decision),
 *   envelopes as the space writer makes them (`turn:<id>` idempotency key, seal caused by its turn).
 * - `BlockSummarized` / `MemoryEventsExtracted`: what the consolidator records with the default
 *   offline model: compacted block messages → `summarizeBlock`; previous block's key points and a
 *   timeline (≤ 8 relevant of the 400 most recent events + ≤ 4 recent) → `extractMemoryEvents`;
 *   then `admitEvents` against that timeline; idempotency keys `summary:`/`extract:<block>:c0:a1`.
 * - A few `MemoryEventStateChanged` pins (1 per 2,000 events), as the pin endpoint appends them.
 *
 * Graph jobs are not seeded (no `GraphProjected`): the server runs without the consolidator role
 * while measuring, so the graph stays empty and blocks keep `graph_status = pending`.
 */
import {
  admitEvents,
  compactForModel,
  decideRecordTurn,
  evolveSpaceWriter,
  initialSpaceWriterState,
  tokenize,
  type MemoryEventCard,
  type MemoryRecord,
  type NewRecord,
  type SpaceRef,
} from '@stratagate/domain';
import { newRecord } from '@stratagate/log';
import {
  createOfflineProvider,
  type ModelPort,
  type SummaryMessage,
  type TimelineEntry,
} from '@stratagate/model';
import {
  between,
  chance,
  generateTurn,
  hexId,
  prng,
  speakerFor,
  type Rng,
} from './search-corpus.ts';

export interface SeedPlan {
  space: SpaceRef;
  /** Stop sealing new blocks once the space has at least this many memory events. */
  events: number;
  seed: number;
  /** Records per append (one transaction each). */
  batchRecords?: number;
  onProgress?: (stats: SeedStats) => void;
}

export interface SeedStats {
  records: number;
  turns: number;
  messages: number;
  blocks: number;
  events: number;
  supersedes: number;
  safetyEvents: number;
  pinned: number;
  threads: string[];
  /** Seconds spent appending (awaiting the log), and in total. */
  appendSeconds: number;
  seconds: number;
}

interface OpenTurn {
  turnId: string;
  occurredAt: string;
  messages: { messageId: string; role: 'user' | 'assistant'; name?: string; content: string }[];
}

interface ThreadPlan {
  id: string;
  speaker: string;
  blocksTarget: number;
  blocksSealed: number;
  open: OpenTurn[];
  previousSummary: string | null;
  previousKeyPoints: { blockId: string; keyPoints: string[] } | null;
}

interface RecentEvent {
  entry: TimelineEntry;
  tokens: Set<string>;
}

const ACTIVE_THREADS = 4;
const TIMELINE_CANDIDATES = 400;
const PIN_EVERY = 2000;

/**
 * Generates the space's records and hands them to `sink` (the log's append) in batches of
 * `batchRecords`. The next batch is generated while the previous one is written (on a Postgres
 * server the two overlap).
 */
export async function seedSpace(
  plan: SeedPlan,
  sink: (records: NewRecord[]) => Promise<void>,
): Promise<SeedStats> {
  const started = performance.now();
  const rng = prng(plan.seed);
  const model = createOfflineProvider();
  const { space } = plan;
  const batchRecords = plan.batchRecords ?? 4000;
  const writer = initialSpaceWriterState();
  const stats: SeedStats = {
    records: 0,
    turns: 0,
    messages: 0,
    blocks: 0,
    events: 0,
    supersedes: 0,
    safetyEvents: 0,
    pinned: 0,
    threads: [],
    appendSeconds: 0,
    seconds: 0,
  };
  let clock = Date.UTC(2023, 0, 2, 1, 0, 0);
  let batch: NewRecord[] = [];
  let appending: Promise<void> = Promise.resolve();
  let lastProgress = performance.now();
  const recent: RecentEvent[] = []; // newest first
  const byId = new Map<string, RecentEvent>();

  const flush = async () => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    await appending;
    const t0 = performance.now();
    appending = sink(records).then(() => {
      stats.appendSeconds += (performance.now() - t0) / 1000;
      stats.records += records.length;
    });
    if (plan.onProgress && performance.now() - lastProgress > 10_000) {
      lastProgress = performance.now();
      plan.onProgress({ ...stats, seconds: (performance.now() - started) / 1000 });
    }
  };

  const push = async (record: NewRecord) => {
    batch.push(record);
    evolveSpaceWriter(writer, record as unknown as MemoryRecord, writer.version + 1);
    if (batch.length >= batchRecords) await flush();
  };

  let threadNo = 0;
  const newThread = (): ThreadPlan => {
    const id = `session-${String(++threadNo).padStart(5, '0')}`;
    stats.threads.push(id);
    clock += between(rng, 1, 48) * 3_600_000;
    return {
      id,
      speaker: speakerFor(rng),
      blocksTarget: between(rng, 8, 24),
      blocksSealed: 0,
      open: [],
      previousSummary: null,
      previousKeyPoints: null,
    };
  };

  async function recordTurn(thread: ThreadPlan): Promise<string | null> {
    clock += between(rng, 20, 900) * 1000;
    const occurredAt = new Date(clock).toISOString();
    const turnId = hexId(rng, 'turn');
    const decided = decideRecordTurn(writer, {
      turnId,
      threadId: thread.id,
      occurredAt,
      messages: generateTurn(rng, thread.speaker).map((m) => ({ ...m, toolCalls: [] })),
      newMessageId: () => hexId(rng, 'msg'),
      newBlockId: () => hexId(rng, 'blk'),
    });
    const [turn, seal] = decided;
    const first = newRecord(space, turn!, {
      occurredAt,
      threadId: thread.id,
      idempotencyKey: `turn:${turnId}`,
    });
    await push(first);
    if (turn!.type !== 'TurnRecorded') throw new Error('unexpected decision');
    stats.turns += 1;
    stats.messages += turn!.data.messages.length;
    thread.open.push({
      turnId,
      occurredAt,
      messages: turn!.data.messages.map((m) => ({
        messageId: m.messageId,
        role: m.role as 'user' | 'assistant',
        ...(m.name ? { name: m.name } : {}),
        content: m.content,
      })),
    });
    if (!seal) return null;
    await push(
      newRecord(space, seal, {
        occurredAt,
        threadId: thread.id,
        causationId: first.metadata.recordId,
      }),
    );
    if (seal.type !== 'BlockSealed') throw new Error('unexpected decision');
    const turns = thread.open.filter((t) => seal.data.turnIds.includes(t.turnId));
    thread.open = thread.open.filter((t) => !seal.data.turnIds.includes(t.turnId));
    thread.blocksSealed += 1;
    stats.blocks += 1;
    await consolidate(thread, seal.data.blockId, seal.data.spaceTurnTo, turns);
    return seal.data.blockId;
  }

  /** What the consolidator does for one sealed block with the offline model, in order. */
  async function consolidate(
    thread: ThreadPlan,
    blockId: string,
    spaceTurnTo: number,
    turns: OpenTurn[],
  ) {
    const rows = turns.flatMap((t) => t.messages.map((m) => ({ ...m, occurredAt: t.occurredAt })));
    const compacted = compactForModel(
      rows.map((m) => ({ role: m.role, content: m.content, toolCalls: [] })),
    );
    const messages: SummaryMessage[] = rows.map((m, i) => ({
      messageId: m.messageId,
      role: m.role,
      ...(m.name ? { name: m.name } : {}),
      content: compacted[i]?.content ?? m.content,
      toolCalls: [],
      occurredAt: m.occurredAt,
    }));
    const at = () => new Date((clock += between(rng, 1, 5) * 1000)).toISOString();
    const summary = await model.summarizeBlock({
      blockId,
      threadId: thread.id,
      messages,
      previousSummary: thread.previousSummary,
    });
    await push(
      newRecord(
        space,
        {
          type: 'BlockSummarized',
          data: { blockId, attempt: 1, ...summary.output, model: provenance(summary) },
        },
        { occurredAt: at(), threadId: thread.id, idempotencyKey: `summary:${blockId}:c0:a1` },
      ),
    );
    const previous = thread.previousKeyPoints;
    thread.previousSummary = summary.output.summary;
    thread.previousKeyPoints = { blockId, keyPoints: summary.output.keyPoints };
    if (!summary.output.shouldExtract) return;

    const timeline = timelineFor(
      [
        summary.output.title,
        summary.output.tags.join(' '),
        summary.output.summary,
        ...summary.output.keyPoints,
      ].join('\n'),
    );
    const result = await (model as Required<ModelPort>).extractMemoryEvents({
      blockId,
      threadId: thread.id,
      messages,
      previous,
      next: null,
      timeline,
    });
    const events = admitEvents(result.output.events, {
      blockId,
      threadId: thread.id,
      blockMessageIds: rows.map((m) => m.messageId),
      messageTimes: Object.fromEntries(rows.map((m) => [m.messageId, m.occurredAt])),
      linkableEventIds: new Set(timeline.map((e) => e.id)),
      formedTurn: spaceTurnTo,
      newEventId: () => hexId(rng, 'evt'),
    });
    await push(
      newRecord(
        space,
        {
          type: 'MemoryEventsExtracted',
          data: { blockId, attempt: 1, events, model: provenance(result) },
        },
        { occurredAt: at(), threadId: thread.id, idempotencyKey: `extract:${blockId}:c0:a1` },
      ),
    );
    for (const e of events) {
      remember(e);
      stats.events += 1;
      if (e.criticality === 'safety') stats.safetyEvents += 1;
      if (stats.events % PIN_EVERY === 0) {
        stats.pinned += 1;
        await push(
          newRecord(
            space,
            { type: 'MemoryEventStateChanged', data: { eventId: e.id, change: 'pinned' } },
            { occurredAt: at() },
          ),
        );
      }
    }
  }

  /** The consolidator's timeline (extraction-jobs.ts), over an in-memory copy of recent events. */
  function timelineFor(blockText: string): TimelineEntry[] {
    const query = new Set(tokenize(blockText));
    const candidates = recent.slice(0, TIMELINE_CANDIDATES);
    const scored = candidates
      .map((r) => {
        let shared = 0;
        for (const t of r.tokens) if (query.has(t)) shared++;
        return { r, score: shared / Math.sqrt(r.tokens.size + 1) };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || (a.r.entry.id < b.r.entry.id ? -1 : 1));
    const relevant = scored.slice(0, 8).map((x) => x.r);
    const chosen = new Set(relevant);
    const latest = candidates.filter((r) => !chosen.has(r)).slice(0, 4);
    return [...relevant, ...latest].map((r) => r.entry);
  }

  function remember(e: MemoryEventCard) {
    const item: RecentEvent = {
      entry: {
        id: e.id,
        title: e.title,
        summary: Array.from(e.summary).slice(0, 400).join(''),
        scope: e.scope,
        criticality: e.criticality,
        status: 'active',
        supersededBy: null,
        temporal: e.temporal,
      },
      tokens: new Set(tokenize(`${e.title}\n${e.summary}\n${e.tags.join(' ')}`)),
    };
    for (const target of e.temporal.supersedesEventIds) {
      const old = byId.get(target);
      if (old && old.entry.status === 'active') {
        old.entry.status = 'superseded';
        old.entry.supersededBy = e.id;
        stats.supersedes += 1;
      }
    }
    recent.unshift(item);
    byId.set(e.id, item);
    if (recent.length > TIMELINE_CANDIDATES * 2) {
      for (const gone of recent.splice(TIMELINE_CANDIDATES)) byId.delete(gone.entry.id);
    }
  }

  // Several threads run side by side, as sessions of a space do; each seals 8–24 blocks and
  // keeps an open tail of 2–11 turns when it ends.
  const active: ThreadPlan[] = [];
  const finish = async (thread: ThreadPlan, r: Rng) => {
    const tail = Math.max(thread.open.length, between(r, 2, 11));
    while (thread.open.length < tail) await recordTurn(thread);
  };
  while (stats.events < plan.events) {
    while (active.length < ACTIVE_THREADS) active.push(newThread());
    const i = Math.floor(rng() * active.length);
    const thread = active[i]!;
    const sealed = await recordTurn(thread);
    if (sealed && thread.blocksSealed >= thread.blocksTarget) {
      await finish(thread, rng);
      active.splice(i, 1);
    }
    // A day passes between sessions now and then.
    if (chance(rng, 0.001)) clock += 86_400_000;
  }
  for (const thread of active) await finish(thread, rng);
  await flush();
  await appending;
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}

function provenance(result: {
  provider: string;
  model?: string;
  promptVersion: string;
  usage?: { inputTokens: number; outputTokens: number };
}) {
  return {
    provider: result.provider,
    ...(result.model ? { model: result.model } : {}),
    promptVersion: result.promptVersion,
    ...(result.usage ? { usage: result.usage } : {}),
  };
}
